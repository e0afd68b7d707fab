//! Reading values: bytes and bits at a stream's position, one attribute's
//! value (of a primitive, a user type or bytes with their processing), and
//! the elements of a repeat.

use super::*;

/// A terminator is one byte.
const TERMINATOR: u64 = 1;

impl Run<'_> {
    /// Reads `n` bytes at the position of `io` (aligned to a byte).
    pub(super) fn read_bytes(&mut self, io: usize, n: u64) -> Res<(u64, &[u8])> {
        let i = self.io_mut(io)?;
        i.nbits = 0;
        i.bits = 0;
        let (space, base, pos, len) = (i.space, i.base, i.pos, i.len);
        if n > len.saturating_sub(pos) {
            return fail(
                Some((space, base + pos)),
                format!(
                    "{n} bytes asked for, {} left in the stream",
                    len.saturating_sub(pos)
                ),
            );
        }
        if let Ok(i) = self.io_mut(io) {
            i.pos += n;
        }
        let abs = base + pos;
        let d = self.space_bytes(space);
        let s = usize::try_from(abs).unwrap_or(usize::MAX);
        let e = usize::try_from(abs + n).unwrap_or(usize::MAX);
        match d.get(s..e) {
            Some(b) => Ok((abs, b)),
            None => fail(Some((space, abs)), "bytes past the end of the data"),
        }
    }

    pub(super) fn read_bits(&mut self, io: usize, n: u32, le: bool) -> Res<(u64, u64, u64)> {
        let (space, abs0, nbits0) = {
            let i = self.io(io)?;
            (i.space, i.base + i.pos, i.nbits)
        };
        let start = if nbits0 > 0 { abs0 - 1 } else { abs0 };
        let need = n.saturating_sub(nbits0);
        let nbytes = need.div_ceil(8);
        let (space_, base, pos, len) = {
            let i = self.io(io)?;
            (i.space, i.base, i.pos, i.len)
        };
        if u64::from(nbytes) > len.saturating_sub(pos) {
            return fail(Some((space, abs0)), "bits past the end of the stream");
        }
        let bytes: Vec<u8> = self
            .space_bytes(space_)
            .get((base + pos) as usize..(base + pos + u64::from(nbytes)) as usize)
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        let i = self.io_mut(io)?;
        i.pos += u64::from(nbytes);
        let mask = |k: u32| {
            if k >= 128 {
                u128::MAX
            } else {
                (1u128 << k) - 1
            }
        };
        let v;
        if le {
            for b in bytes {
                i.bits |= u128::from(b) << i.nbits;
                i.nbits += 8;
            }
            v = i.bits & mask(n);
            i.bits >>= n;
            i.nbits -= n;
        } else {
            for b in bytes {
                i.bits = (i.bits << 8) | u128::from(b);
                i.nbits += 8;
            }
            v = (i.bits >> (i.nbits - n)) & mask(n);
            i.nbits -= n;
            i.bits &= mask(i.nbits);
        }
        let end = i.base + i.pos;
        Ok((start, end.saturating_sub(start), v as u64))
    }

    /// Reads the elements of a repeat under item `g`; `keep`: their values
    /// are returned; `marks`: where every GROUP-th element starts is noted.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn repeat(
        &mut self,
        cx: &Cx,
        a: &Attr,
        g: usize,
        io: usize,
        rep: &Repeat,
        keep: bool,
        mut marks: Option<&mut Vec<u64>>,
    ) -> Res<(Vec<V>, u64, bool)> {
        let mut out = Vec::new();
        let count = match rep {
            Repeat::Expr(e) => Some(self.int(cx, e, a.at)?),
            _ => None,
        };
        let mut i: i128 = 0;
        loop {
            self.step()?;
            if let Some(n) = count {
                if i >= n {
                    break;
                }
            }
            if matches!(rep, Repeat::Eos) {
                let s = self.io(io)?;
                if s.pos >= s.len {
                    break;
                }
            }
            if let Some(m) = marks.as_deref_mut() {
                let s = self.io(io)?;
                if s.nbits != 0 {
                    return Ok((out, i as u64, false));
                }
                if (i as u64).is_multiple_of(crate::model::GROUP) {
                    m.push(s.base + s.pos);
                }
            }
            let icx = Cx {
                obj: cx.obj.clone(),
                index: Some(i),
                under: None,
            };
            let name = format!("[{i}]");
            let before = self.here(io);
            let v = self.one(&icx, a, &name, g, io, Some(i))?;
            if marks.is_some() && self.here(io) == before {
                // An element of no bytes: the elements cannot be found
                // again by where they start.
                return Ok((out, i as u64, false));
            }
            if let Repeat::Until(e) = rep {
                let ucx = Cx {
                    obj: cx.obj.clone(),
                    index: Some(i),
                    under: Some(v.clone()),
                };
                let done = self.eval(&ucx, e)?;
                if keep {
                    out.push(v);
                }
                if truth(&done).map_err(|m| self.spec_fail(a.at, m))? {
                    i += 1;
                    break;
                }
            } else if keep {
                out.push(v);
            }
            i += 1;
        }
        Ok((out, i as u64, true))
    }
    /// Fixed `contents`: the bytes at the position of `io`, which must be
    /// those.
    fn contents(&mut self, c: &[u8], name: &str, parent: usize, io: usize) -> Res<V> {
        let (space, _) = self.here(io);
        let (off, b) = self.read_bytes(io, c.len() as u64)?;
        if b != c {
            return fail(
                Some((space, off)),
                format!("{name}: expected {}, found {}", hex(c), hex(b)),
            );
        }
        let v = Arc::<[u8]>::from(b);
        self.leaf(
            parent,
            name,
            space,
            off,
            c.len() as u64,
            Some(bytes_value(&v)),
        )?;
        Ok(V::Bytes(v))
    }

    /// A primitive without a size read at `at`, as an enum's value where
    /// `a` names one (its item then shows the enumerant).
    #[allow(clippy::too_many_arguments)]
    fn prim_attr(
        &mut self,
        cx: &Cx,
        a: &Attr,
        p: Prim,
        name: &str,
        parent: usize,
        io: usize,
        at: (usize, u64),
    ) -> Res<V> {
        let v = self.prim(cx, p, io, name, parent, cx.obj.ty)?;
        let v = match &a.enum_ {
            Some(path) => {
                let ev = self.as_enum(cx, path, v, a.at)?;
                if let (V::Enum(en, x), Some(&last)) =
                    (&ev, self.items.get(parent).and_then(|p| p.kids.last()))
                {
                    if let Some(it) = self.items.get_mut(last) {
                        it.value = Some(Value::Named {
                            v: *x as u64,
                            radix: Radix::Auto,
                            name: en.name_of(*x).map(Into::into),
                        });
                    }
                }
                ev
            }
            None => v,
        };
        self.validate(cx, a, &v, at)?;
        Ok(v)
    }

    /// Reads one value of `a` (one element of a repeat) as item `name`.
    pub(super) fn one(
        &mut self,
        cx: &Cx,
        a: &Attr,
        name: &str,
        parent: usize,
        io: usize,
        _index: Option<i128>,
    ) -> Res<V> {
        let spec = self.spec;
        let (space, start) = self.here(io);
        if let Some(c) = &a.contents {
            return self.contents(c, name, parent, io);
        }
        let ty = match self.resolve(cx, &a.ty)? {
            Some(t) => t,
            None if a.size.is_some() || a.size_eos => &Type::Bytes,
            None => return Ok(V::Null),
        };
        let my_ty = cx.obj.ty;
        // Sized: a size, size-eos, or a terminator for bytes and str.
        let sized = a.size.is_some()
            || a.size_eos
            || (a.terminator.is_some() && matches!(ty, Type::Bytes | Type::Str { .. }))
            || matches!(ty, Type::Str { z: true });
        if let Type::Prim(p) = ty {
            if a.size.is_none() {
                return self.prim_attr(cx, a, *p, name, parent, io, (space, start));
            }
        }
        if !sized {
            if let Type::User { path, args } = ty {
                let Some(t) = spec.lookup(my_ty, path) else {
                    return Err(self.spec_fail(a.at, format!("unknown type {}", path.join("::"))));
                };
                let mut vals = Vec::new();
                for e in args {
                    vals.push(self.eval(cx, e)?);
                }
                let it = self.push_item(parent, Item::group(name.to_string(), space, start, 0))?;
                let o = self.object(t, vals, Some(&cx.obj), io, it)?;
                let (_, end) = self.here(io);
                if let Some(i) = self.items.get_mut(it) {
                    i.size = end.saturating_sub(start);
                }
                let v = V::Obj(o);
                self.validate(cx, a, &v, (space, start))?;
                return Ok(v);
            }
        }
        // The raw bytes.
        let (raw_off, raw): (u64, Arc<[u8]>) = if let Some(e) = &a.size {
            let n = self.int(cx, e, a.at)?;
            let Ok(n) = u64::try_from(n) else {
                return fail(Some((space, start)), format!("{name}: size {n}"));
            };
            let (o, b) = self.read_bytes(io, n)?;
            (o, Arc::from(b))
        } else if a.size_eos {
            let left = {
                let i = self.io(io)?;
                i.len.saturating_sub(i.pos)
            };
            let (o, b) = self.read_bytes(io, left)?;
            (o, Arc::from(b))
        } else {
            let term = a.terminator.unwrap_or(0);
            let (pos, left) = {
                let i = self.io(io)?;
                (i.pos, i.len.saturating_sub(i.pos))
            };
            let (o, b) = {
                let i = self.io(io)?;
                let (sp, abs) = (i.space, i.base + i.pos);
                let d = self.space_bytes(sp);
                let s = d.get(abs as usize..(abs + left) as usize).unwrap_or(&[]);
                (abs, s)
            };
            let found = memchr::memchr(term, b);
            let (take, advance) = match found {
                Some(k) => {
                    let k = k as u64;
                    let take = if a.include { k + TERMINATOR } else { k };
                    let adv = if a.consume { k + TERMINATOR } else { k };
                    (take, adv)
                }
                None if a.eos_error => {
                    return fail(
                        Some((space, o)),
                        format!("{name}: terminator 0x{term:02x} not found"),
                    )
                }
                None => (left, left),
            };
            let bytes: Arc<[u8]> = Arc::from(b.get(..take as usize).unwrap_or(&[]));
            let i = self.io_mut(io)?;
            i.pos = pos + advance;
            i.nbits = 0;
            i.bits = 0;
            // The item covers what was consumed.
            let v =
                self.finish_bytes(cx, a, ty, name, parent, (space, o, advance), bytes, my_ty)?;
            self.validate(cx, a, &v, (space, o))?;
            return Ok(v);
        };
        // Sized bytes: pad-right and a terminator inside.
        let mut b: Arc<[u8]> = raw.clone();
        if a.process.is_none() {
            if let Some(p) = a.pad_right {
                b = Arc::from(crate::model::text::strip_padding(&b, p));
            }
            let term = match ty {
                Type::Str { z: true } => Some(a.terminator.unwrap_or(0)),
                _ => a.terminator,
            };
            if let Some(t) = term {
                if let Some(k) = b.iter().position(|&c| c == t) {
                    let keep = if a.include {
                        k + TERMINATOR as usize
                    } else {
                        k
                    };
                    b = Arc::from(b.get(..keep).unwrap_or(&[]));
                }
            }
        }
        let v = self.finish_bytes(
            cx,
            a,
            ty,
            name,
            parent,
            (space, raw_off, raw.len() as u64),
            b,
            my_ty,
        )?;
        self.validate(cx, a, &v, (space, raw_off))?;
        Ok(v)
    }

    /// Turns bytes read at `(space, off, size)` into the attribute's value:
    /// processed, decoded as a string, or parsed as a user type in a
    /// substream of their own.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish_bytes(
        &mut self,
        cx: &Cx,
        a: &Attr,
        ty: &Type,
        name: &str,
        parent: usize,
        (space, off, size): (usize, u64, u64),
        bytes: Arc<[u8]>,
        my_ty: usize,
    ) -> Res<V> {
        let spec = self.spec;
        // Processed bytes become a derived space.
        let (space2, base2, bytes, container) = if let Some(p) = &a.process {
            let (out, method) = match p {
                Process::Zlib => {
                    let limit = space::budget(size, self.st.derived_total);
                    match compress::inflate(&bytes, compress::Method::Zlib, limit) {
                        Ok(v) if v.len() as u64 <= limit => (v, "zlib"),
                        Ok(_) => {
                            return fail(
                                Some((space, off)),
                                format!("{name}: zlib makes more than {limit} bytes; not opened"),
                            )
                        }
                        Err(e) => return fail(Some((space, off)), format!("{name}: {e}")),
                    }
                }
                Process::Xor(k) => {
                    let key: Vec<u8> = match self.eval(cx, k)? {
                        V::Int(v) => vec![v as u8],
                        V::Bytes(b) => b.to_vec(),
                        other => {
                            return Err(self.spec_fail(a.at, format!("xor key {}", show(&other))))
                        }
                    };
                    let out = if key.is_empty() {
                        bytes.to_vec()
                    } else {
                        bytes
                            .iter()
                            .zip(key.iter().cycle())
                            .map(|(b, k)| b ^ k)
                            .collect()
                    };
                    (out, "xor")
                }
                Process::Rotate(left, k) => {
                    let n = self.int(cx, k, a.at)?.rem_euclid(8) as u32;
                    let out = bytes
                        .iter()
                        .map(|b| {
                            if *left {
                                b.rotate_left(n)
                            } else {
                                b.rotate_right(n)
                            }
                        })
                        .collect();
                    (out, if *left { "rol" } else { "ror" })
                }
            };
            self.st.derived_total += out.len() as u64;
            let rc: Arc<[u8]> = Arc::from(out);
            self.st.derived.push(rc.clone());
            let k = self.st.derived.len();
            let holder = self.push_item(parent, Item::group(name.to_string(), space, off, size))?;
            let d = self.push_item(
                holder,
                Item {
                    name: format!("{name} ({method})"),
                    space: k,
                    off: 0,
                    size: rc.len() as u64,
                    value: None,
                    kids: Vec::new(),
                    derive: Some((k, method)),
                    group: false,
                    grown: false,
                    later: None,
                },
            )?;
            (k, 0u64, rc, Some(d))
        } else {
            (space, off, bytes, None)
        };
        match ty {
            Type::User { path, args } => {
                let Some(t) = spec.lookup(my_ty, path) else {
                    return Err(self.spec_fail(a.at, format!("unknown type {}", path.join("::"))));
                };
                let mut vals = Vec::new();
                for e in args {
                    vals.push(self.eval(cx, e)?);
                }
                let sub = self.new_io(space2, base2, bytes.len() as u64)?;
                // Processed bytes: the derived space's node is the object's.
                let it = match container {
                    Some(d) => d,
                    None => self.push_item(parent, Item::group(name, space2, base2, size))?,
                };
                let o = self.object(t, vals, Some(&cx.obj), sub, it)?;
                Ok(V::Obj(o))
            }
            Type::Str { .. } => {
                let enc = a
                    .encoding
                    .clone()
                    .or_else(|| self.type_meta(my_ty, |t| t.encoding.clone()))
                    .unwrap_or_else(|| "UTF-8".into());
                let s = decode(&bytes, &enc);
                if container.is_none() {
                    self.leaf(parent, name, space, off, size, Some(Value::str(&s)))?;
                }
                Ok(V::Str(Arc::from(s)))
            }
            _ => {
                if container.is_none() {
                    self.leaf(parent, name, space, off, size, Some(bytes_value(&bytes)))?;
                }
                Ok(V::Bytes(bytes))
            }
        }
    }

    /// The first of `f` over type `ty` and its ancestors.
    pub(super) fn type_meta<T>(
        &self,
        ty: usize,
        f: impl Fn(&crate::formats::ksy::spec::TypeDef) -> Option<T>,
    ) -> Option<T> {
        let mut cur = Some(ty);
        while let Some(c) = cur {
            let t = self.spec.types.get(c)?;
            if let Some(v) = f(t) {
                return Some(v);
            }
            cur = t.parent;
        }
        None
    }

    pub(super) fn prim(
        &mut self,
        cx: &Cx,
        p: Prim,
        io: usize,
        name: &str,
        parent: usize,
        my_ty: usize,
    ) -> Res<V> {
        let obj_le = lk(&cx.obj).le;
        let space = self.io(io)?.space;
        let need_le = |e: Option<bool>, r: &Self| -> Res<bool> {
            match e.or(obj_le) {
                Some(x) => Ok(x),
                None => fail(
                    Some(r.here(io)),
                    format!("{name}: no byte order (meta/endian) for a multi-byte number"),
                ),
            }
        };
        match p {
            Prim::U(n, e) | Prim::S(n, e) | Prim::F(n, e) => {
                let le = if n == 1 { true } else { need_le(e, self)? };
                let (off, b) = self.read_bytes(io, u64::from(n))?;
                let mut v: u64 = 0;
                if le {
                    for &x in b.iter().rev() {
                        v = (v << 8) | u64::from(x);
                    }
                } else {
                    for &x in b {
                        v = (v << 8) | u64::from(x);
                    }
                }
                let (val, shown) = match p {
                    Prim::U(..) => (
                        V::Int(i128::from(v)),
                        Value::U {
                            v,
                            width: n,
                            radix: Radix::Auto,
                        },
                    ),
                    Prim::S(..) => {
                        let bits = u32::from(n) * 8;
                        let s = ((v << (64 - bits)) as i64) >> (64 - bits);
                        (V::Int(i128::from(s)), Value::I { v: s, width: n })
                    }
                    _ => {
                        let f = if n == 4 {
                            f64::from(f32::from_bits(v as u32))
                        } else {
                            f64::from_bits(v)
                        };
                        (V::Float(f), Value::text(format!("{f:?}")))
                    }
                };
                self.leaf(parent, name, space, off, u64::from(n), Some(shown))?;
                Ok(val)
            }
            Prim::B(n, e) => {
                let le = e
                    .or_else(|| self.type_meta(my_ty, |t| t.bit_le))
                    .unwrap_or(false);
                let (off, size, v) = self.read_bits(io, u32::from(n), le)?;
                let (val, shown) = if n == 1 {
                    (
                        V::Bool(v != 0),
                        Value::U {
                            v,
                            width: 0,
                            radix: Radix::Dec,
                        },
                    )
                } else {
                    (
                        V::Int(i128::from(v)),
                        Value::U {
                            v,
                            width: 0,
                            radix: Radix::Auto,
                        },
                    )
                };
                self.leaf(parent, name, space, off, size, Some(shown))?;
                Ok(val)
            }
        }
    }
}
