//! Reading values: bytes and bits at a stream's position, one attribute's
//! value (of a primitive, a user type or bytes with their processing), and
//! the elements of a repeat.

use compact_str::format_compact;

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
        // The bytes and the stream are borrowed apart (fields of their own).
        let whole: &[u8] = if space_ == 0 {
            self.data
        } else {
            self.st.derived.get(space_ - 1).map_or(&[], |v| &v[..])
        };
        let bytes = whole
            .get((base + pos) as usize..(base + pos + u64::from(nbytes)) as usize)
            .unwrap_or_default();
        let Some(i) = self.st.ios.get_mut(io) else {
            return fail(None, "no such stream");
        };
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
            for &b in bytes {
                i.bits |= u128::from(b) << i.nbits;
                i.nbits += 8;
            }
            v = i.bits & mask(n);
            i.bits >>= n;
            i.nbits -= n;
        } else {
            for &b in bytes {
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
                obj: cx.obj,
                index: Some(i),
                under: None,
            };
            let name = crate::model::text::index(i);
            let before = self.here(io);
            let v = self.one(&icx, a, &name, g, io, Some(i))?;
            if marks.is_some() && self.here(io) == before {
                // An element of no bytes: the elements cannot be found
                // again by where they start.
                return Ok((out, i as u64, false));
            }
            if let Repeat::Until(e) = rep {
                let ucx = Cx {
                    obj: cx.obj,
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
    /// The elements of a repeat of `a` at the position of `io` found
    /// without reading them, where every element has the same size
    /// ([`Run::uniform_size`]) and they fill the stream (`eos`) or fit in
    /// it (`expr`): where every GROUP-th starts is pushed on `marks`, the
    /// stream moves past them, and their count is returned. `None`: the
    /// stream has not moved; the elements must be read.
    pub(super) fn uniform_repeat(
        &mut self,
        cx: &Cx,
        a: &Attr,
        io: usize,
        rep: &Repeat,
        marks: &mut Vec<u64>,
    ) -> Option<u64> {
        if a.size.is_some() || a.size_eos || !plain(a) {
            return None;
        }
        let owner_le = cx.obj.le().is_some();
        let size = self.element_size(a, cx.obj, io, owner_le, 0)?;
        let s = self.io(io).ok()?.clone();
        let left = s.len.checked_sub(s.pos)?;
        if s.nbits != 0 || size == 0 {
            return None;
        }
        let count = match rep {
            Repeat::Eos if left % size == 0 => left / size,
            Repeat::Expr(e) => {
                let n = u64::try_from(self.int(cx, e, a.at).ok()?).ok()?;
                (n.checked_mul(size)? <= left).then_some(n)?
            }
            _ => return None,
        };
        if count == 0 {
            return None;
        }
        let start = s.base + s.pos;
        let group = crate::model::GROUP;
        marks.extend((0..count.div_ceil(group)).map(|k| start + k * group * size));
        self.io_mut(io).ok()?.pos += count * size;
        Some(count)
    }

    /// The size of every object of type `ty` read under `owner` from `io`,
    /// where it is the same for all and reading one cannot fail (but for
    /// the end of the stream): each seq attribute a number, a bit field,
    /// bytes or a string of a literal size, or an object of such a type
    /// without arguments; no `contents`, `valid`, `process`, terminator,
    /// switch, `pos` or `io`; an `if` only on `_root` (the same for every
    /// object); the byte order known; whole bytes at the end. `le`: the
    /// owner's byte order is known.
    fn uniform_size(
        &mut self,
        ty: usize,
        owner: &Arc<Obj>,
        io: usize,
        le: bool,
        nest: u32,
    ) -> Option<u64> {
        let spec = self.spec;
        let t = spec.types.get(ty)?;
        let deep = self.depth.max(owner.depth).saturating_add(nest + 2);
        if nest > 4 || deep >= MAX_DEPTH {
            return None;
        }
        let le = match &t.endian {
            Some(Endian::Le | Endian::Be) => true,
            Some(Endian::Switch(..)) => return None,
            None => le,
        };
        // An object of the type, for the conditions' enums and `_parent`.
        let probe = Arc::new(Obj {
            ty,
            parent: Some(Arc::downgrade(owner)),
            io,
            depth: owner.depth + 1,
            ..Obj::unread(0, 0)
        });
        let (mut bytes, mut bits) = (0u64, 0u64);
        for a in &t.seq {
            if !plain(a) || a.pos.is_some() || a.io.is_some() || a.size_eos {
                return None;
            }
            if let Some(c) = &a.cond {
                if !on_root(c) {
                    return None;
                }
                let v = self.eval(&Cx::of(&probe), c).ok()?;
                if !truth(&v).ok()? {
                    continue;
                }
            }
            let count = match &a.repeat {
                Repeat::No => 1,
                Repeat::Expr(Expr::Int(n)) => u64::try_from(*n).ok()?,
                _ => return None,
            };
            if let (Type::Prim(Prim::B(n, _)), None, 1) = (&a.ty, &a.size, count) {
                bits += u64::from(*n);
                continue;
            }
            bytes = bytes.checked_add(bits.div_ceil(8))?;
            bits = 0;
            let one = self.element_size(a, &probe, io, le, nest + 1)?;
            bytes = bytes.checked_add(one.checked_mul(count)?)?;
        }
        (bits % 8 == 0).then_some(())?;
        bytes.checked_add(bits / 8)
    }

    /// The size of one element of `a` (an attribute of `owner`'s type, read
    /// from `io`) where it is fixed: a number whose byte order is known
    /// (`le`: the owner's is), bytes or a string of a literal size, or an
    /// object of a user type without arguments whose size is fixed
    /// ([`Run::uniform_size`], `nest` deep).
    fn element_size(
        &mut self,
        a: &Attr,
        owner: &Arc<Obj>,
        io: usize,
        le: bool,
        nest: u32,
    ) -> Option<u64> {
        let ty = owner.ty;
        match (&a.ty, &a.size) {
            (Type::Prim(Prim::U(n, e) | Prim::S(n, e) | Prim::F(n, e)), None) => {
                (*n == 1 || e.is_some() || le).then_some(u64::from(*n))
            }
            (Type::Bytes | Type::Str { z: false }, Some(Expr::Int(n))) => u64::try_from(*n).ok(),
            (Type::User { path, args }, None) if args.is_empty() => {
                let t = self.spec.lookup(ty, path)?;
                self.uniform_size(t, owner, io, le, nest)
            }
            _ => None,
        }
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
            Some(e) => {
                let ev = self.as_enum(e, v, a.at)?;
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
                let it = self.push_item(parent, Item::group(name, space, start, 0))?;
                let o = self.object(t, vals, Some(cx.obj), io, it)?;
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
        let given = match &a.size {
            Some(e) => {
                let n = self.int(cx, e, a.at)?;
                let Ok(n) = u64::try_from(n) else {
                    return fail(Some((space, start)), format!("{name}: size {n}"));
                };
                Some(n)
            }
            None if a.size_eos => {
                let i = self.io(io)?;
                Some(i.len.saturating_sub(i.pos))
            }
            None => None,
        };
        let (raw_off, raw): (u64, Arc<[u8]>) = if let Some(n) = given {
            let (o, b) = self.read_bytes(io, n)?;
            if in_place(a, ty) {
                // An object read where its bytes are: they are not copied.
                let v = self.sub_object(cx, a, ty, (space, o, n), Under::New(name, parent, n))?;
                self.validate(cx, a, &v, (space, o))?;
                return Ok(v);
            }
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
            let holder = self.push_item(parent, Item::group(name, space, off, size))?;
            let d = self.push_item(
                holder,
                Item {
                    extra: Extra::Derive(Box::new((k, method))),
                    group: false,
                    ..Item::group(format_compact!("{name} ({method})"), k, 0, rc.len() as u64)
                },
            )?;
            (k, 0u64, rc, Some(d))
        } else {
            (space, off, bytes, None)
        };
        match ty {
            Type::User { .. } => {
                let under = match container {
                    Some(d) => Under::Item(d),
                    None => Under::New(name, parent, size),
                };
                self.sub_object(cx, a, ty, (space2, base2, bytes.len() as u64), under)
            }
            Type::Str { .. } => {
                let meta;
                let enc = match &a.encoding {
                    Some(e) => e.as_str(),
                    None => {
                        meta = self.type_meta(my_ty, |t| t.encoding.clone());
                        meta.as_deref().unwrap_or("UTF-8")
                    }
                };
                let s = decode(&bytes, enc);
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

    /// An object of the user type `ty` read in a stream of its own over
    /// `[base, base+len)` of `space`, under the item `under` says.
    fn sub_object(
        &mut self,
        cx: &Cx,
        a: &Attr,
        ty: &Type,
        (space, base, len): (usize, u64, u64),
        under: Under<'_>,
    ) -> Res<V> {
        let Type::User { path, args } = ty else {
            return fail(None, "not a user type");
        };
        let Some(t) = self.spec.lookup(cx.obj.ty, path) else {
            return Err(self.spec_fail(a.at, format!("unknown type {}", path.join("::"))));
        };
        let mut vals = Vec::new();
        for e in args {
            vals.push(self.eval(cx, e)?);
        }
        let sub = self.new_io(space, base, len)?;
        let it = match under {
            Under::Item(d) => d,
            Under::New(name, parent, size) => {
                self.push_item(parent, Item::group(name, space, base, size))?
            }
        };
        let o = self.object(t, vals, Some(cx.obj), sub, it)?;
        Ok(V::Obj(o))
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
        let obj_le = cx.obj.le();
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

/// Where an object read in a stream of its own goes: into an item made
/// for it (processed bytes: the derived space's node is the object's), or
/// a new item (its name, its parent and how many bytes it covers).
enum Under<'n> {
    Item(usize),
    New(&'n str, usize, u64),
}

/// True if the bytes of `a` (of a given size) are read as an object of a
/// user type as they are: not processed, padded or cut at a terminator.
fn in_place(a: &Attr, ty: &Type) -> bool {
    matches!(ty, Type::User { .. })
        && a.process.is_none()
        && a.pad_right.is_none()
        && a.terminator.is_none()
}

/// An attribute with no check that may fail on some of the bytes it
/// reads: no `contents`, `valid`, `process` or terminator.
fn plain(a: &Attr) -> bool {
    a.contents.is_none() && a.valid.is_none() && a.process.is_none() && a.terminator.is_none()
}

/// True if `e` names nothing but `_root` and what is reached from it (and
/// no stream or size of it, which move as it is read): its value is the
/// same in every element of a repeat.
fn on_root(e: &Expr) -> bool {
    match e {
        Expr::Int(_) | Expr::Float(_) | Expr::Str(_) | Expr::Bool(_) | Expr::Enum(..) => true,
        Expr::Name(n) => n == "_root",
        Expr::Attr(b, n) => !n.starts_with('_') && on_root(b),
        Expr::Call(b, n, args) => !n.starts_with('_') && on_root(b) && args.iter().all(on_root),
        Expr::List(xs) => xs.iter().all(on_root),
        Expr::Index(a, b) | Expr::Bin(_, a, b) => on_root(a) && on_root(b),
        Expr::Neg(a) | Expr::Inv(a) | Expr::Not(a) | Expr::Cast(a, _) => on_root(a),
        Expr::If(a, b, c) => on_root(a) && on_root(b) && on_root(c),
        Expr::SizeOf(_) => false,
    }
}
