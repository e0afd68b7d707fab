//! Evaluating expressions: enums, validations, members, `sizeof`, calls
//! and operators.

use super::*;

/// Whether `e` reads only from `_root` down (with `parents`, or from
/// `_parent` down, through parents and their attributes): no name of the
/// object it is evaluated in, no stream, position, `_index`, `_`, call or
/// `sizeof`. With `parents`, the whole expression (`top`) may end in
/// `_io`: a stream is one for the object's life; its position is not.
fn reads_above(e: &Expr, parents: bool, top: bool) -> bool {
    let inner = |x: &Expr| reads_above(x, parents, false);
    match e {
        Expr::Int(_) | Expr::Float(_) | Expr::Str(_) | Expr::Bool(_) | Expr::Enum(..) => true,
        Expr::Name(n) => n == "_root" || (parents && n == "_parent"),
        Expr::Attr(b, n) => {
            let up = n == "_parent" || (top && n == "_io");
            (!n.starts_with('_') || (parents && up)) && inner(b)
        }
        Expr::Index(a, i) => inner(a) && inner(i),
        Expr::Neg(x) | Expr::Inv(x) | Expr::Not(x) | Expr::Cast(x, _) => inner(x),
        Expr::Bin(_, a, b) => inner(a) && inner(b),
        Expr::If(c, a, b) => inner(c) && inner(a) && inner(b),
        Expr::List(_) | Expr::Call(..) | Expr::SizeOf(_) => false,
    }
}

impl Run<'_> {
    /// `v` as a value of the enum `e` names (an integer or a boolean).
    pub(super) fn as_enum(&mut self, e: &EnumRef, v: V, at: Loc) -> Res<V> {
        let Some(en) = e.found.clone() else {
            return Err(self.spec_fail(at, format!("unknown enum {}", e.path.join("::"))));
        };
        match v {
            V::Int(x) => Ok(V::Enum(en, x)),
            V::Bool(b) => Ok(V::Enum(en, i128::from(b))),
            other => Ok(other),
        }
    }

    pub(super) fn validate(&mut self, cx: &Cx, a: &Attr, v: &V, at: (usize, u64)) -> Res<()> {
        let Some(val) = &a.valid else {
            return Ok(());
        };
        let vcx = Cx {
            obj: cx.obj,
            index: cx.index,
            under: Some(v.clone()),
        };
        let bad = |what: String| fail(Some(at), format!("{}: not valid: {what}", a.id));
        if let Some(e) = &val.eq {
            let x = self.eval(&vcx, e)?;
            if !self.equal(v, &x)? {
                return bad(format!("{} is not {}", show(v), show(&x)));
            }
        }
        if let Some(e) = &val.min {
            let x = self.eval(&vcx, e)?;
            if self.cmp(v, &x)? == std::cmp::Ordering::Less {
                return bad(format!("{} is less than {}", show(v), show(&x)));
            }
        }
        if let Some(e) = &val.max {
            let x = self.eval(&vcx, e)?;
            if self.cmp(v, &x)? == std::cmp::Ordering::Greater {
                return bad(format!("{} is more than {}", show(v), show(&x)));
            }
        }
        if !val.any_of.is_empty() {
            let mut ok = false;
            for e in &val.any_of {
                let x = self.eval(&vcx, e)?;
                if self.equal(v, &x)? {
                    ok = true;
                    break;
                }
            }
            if !ok {
                return bad(format!("{} is none of the values allowed", show(v)));
            }
        }
        if val.in_enum {
            if let V::Enum(en, x) = v {
                if en.name_of(*x).is_none() {
                    return bad(format!("{x} is not a member of its enum"));
                }
            }
        }
        if let Some(e) = &val.expr {
            let x = self.eval(&vcx, e)?;
            if !truth(&x).map_err(|m| self.spec_fail(a.at, m))? {
                return bad(format!("{} fails the expression", show(v)));
            }
        }
        Ok(())
    }

    // ---- expressions ----

    pub(super) fn member(&mut self, o: &Arc<Obj>, name: &str) -> Res<V> {
        let special = if name.starts_with('_') { name } else { "" };
        match special {
            "_root" => {
                let root = self.st.root.clone().map_or(V::Null, V::Obj);
                return Ok(self.counted(root));
            }
            "_parent" => {
                return match &o.parent {
                    None => Ok(V::Null),
                    Some(p) => match p.upgrade() {
                        Some(p) => Ok(V::Obj(p)),
                        None => fail(None, "_parent is no longer read"),
                    },
                };
            }
            "_io" => return Ok(V::Io(o.io)),
            "_sizeof" => {
                return Ok(V::Int(i128::from(o.end().saturating_sub(o.start))));
            }
            _ => {}
        }
        let t = self.spec.types.get(o.ty);
        match t.and_then(|t| t.names.get(name)) {
            Some(&Member::Param(k)) => {
                if let Some((_, v)) = o.params.get(k) {
                    return Ok(v.clone());
                }
                // A parameter not given: an attribute of the same name.
                let t = t.map(|t| (&t.seq, &t.instances));
                if let Some((seq, inst)) = t {
                    if let Some(k) = seq.iter().position(|a| a.id == name) {
                        return Ok(self.field(o, k));
                    }
                    if let Some(k) = inst.iter().position(|a| a.id == name) {
                        return self.instance(o, k);
                    }
                }
            }
            Some(&Member::Seq(k)) => return Ok(self.field(o, k)),
            Some(&Member::Inst(k)) => return self.instance(o, k),
            None => {}
        }
        fail(
            None,
            format!(
                "{} has no attribute {name}",
                t.map_or("?", |t| t.name.as_str())
            ),
        )
    }

    /// Seq attribute `k` of `o` as read (null where it is not, or not
    /// kept), counted as [`Run::counted`] says.
    fn field(&mut self, o: &Obj, k: usize) -> V {
        let v = o.field(k);
        self.counted(v)
    }

    /// `v`, counted in [`Run::eval`]'s nulls where it is null.
    fn counted(&mut self, v: V) -> V {
        if matches!(v, V::Null) {
            self.nulls += 1;
        }
        v
    }

    /// `X._sizeof`: an attribute's size as it was read; else the value's.
    pub(super) fn sizeof_attr(&mut self, cx: &Cx, base: &Expr, name: &str) -> Res<V> {
        let (owner, field) = match base {
            Expr::Name(n) => (Some(cx.obj.clone()), n.as_str()),
            Expr::Attr(b, n) => match self.eval(cx, b)? {
                V::Obj(o) => (Some(o), n.as_str()),
                _ => (None, ""),
            },
            _ => (None, ""),
        };
        let read = owner.and_then(|o| {
            let k = self
                .spec
                .types
                .get(o.ty)?
                .seq
                .iter()
                .position(|a| a.id == field)?;
            o.sizes.get(k).and_then(OnceLock::get).copied()
        });
        match read {
            Some(n) => Ok(V::Int(i128::from(n))),
            None => {
                let b = self.eval(cx, base)?;
                self.attr_of(b, name)
            }
        }
    }

    /// `sizeof<T>`: the size of a primitive type or of a user type of
    /// fixed size.
    pub(super) fn sizeof_type(&mut self, cx: &Cx, name: &str) -> Res<V> {
        let path: Vec<String> = name
            .trim_end_matches("[]")
            .split("::")
            .map(str::to_string)
            .collect();
        let size = match prim_size(name) {
            Some(n) => Some(n),
            None => match self.spec.lookup(cx.obj.ty, &path) {
                Some(t) => fixed_size(self.spec, t, 0),
                None => return fail(None, format!("sizeof<{name}>: unknown type")),
            },
        };
        match size {
            Some(n) => Ok(V::Int(i128::from(n))),
            None => fail(None, format!("sizeof<{name}>: its size is not fixed")),
        }
    }

    /// The value of `e` in `cx`. An expression that reads only from
    /// `_root` down (`_root.bits == bits::b64`, which a description may
    /// test for every field it reads) is evaluated once: what it reads is
    /// set once read. One that reads from `_parent` down (the stream of a
    /// string table every symbol's name is read in) is evaluated once for
    /// the objects of each parent, in turn. Its value is not kept where a
    /// name in it read as null (a field not read yet, or left out).
    pub(super) fn eval(&mut self, cx: &Cx, e: &Expr) -> Res<V> {
        if !matches!(
            e,
            Expr::Attr(..) | Expr::Bin(..) | Expr::If(..) | Expr::Index(..)
        ) {
            return self.eval_once(cx, e);
        }
        let key = (std::ptr::from_ref(e) as usize, cx.obj.ty);
        match self.st.memo.get(&key) {
            Some(Memo::Value(v)) => return Ok(v.clone()),
            Some(Memo::No) => return self.eval_once(cx, e),
            Some(Memo::ByParent(p, v)) if cx.obj.parent.as_ref().is_some_and(|q| q.ptr_eq(p)) => {
                return Ok(v.clone())
            }
            Some(Memo::ByParent(..)) | None => {}
        }
        let parent = match (reads_above(e, false, true), &cx.obj.parent) {
            (true, _) => None,
            (false, Some(p)) if reads_above(e, true, true) => Some(p.clone()),
            _ => {
                self.st.memo.insert(key, Memo::No);
                return self.eval_once(cx, e);
            }
        };
        let nulls = self.nulls;
        let v = self.eval_once(cx, e)?;
        if self.nulls == nulls && !matches!(v, V::Null) {
            let m = match parent {
                None => Memo::Value(v.clone()),
                Some(p) => Memo::ByParent(p, v.clone()),
            };
            self.st.memo.insert(key, m);
        }
        Ok(v)
    }

    fn eval_once(&mut self, cx: &Cx, e: &Expr) -> Res<V> {
        self.step()?;
        Ok(match e {
            Expr::Int(v) => V::Int(*v),
            Expr::Float(v) => V::Float(*v),
            Expr::Str(s) => V::Str(Arc::from(s.as_str())),
            Expr::Bool(b) => V::Bool(*b),
            Expr::List(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.eval(cx, i)?);
                }
                if !out.is_empty() && out.iter().all(|v| matches!(v, V::Int(0..=255))) {
                    V::Bytes(
                        out.iter()
                            .map(|v| if let V::Int(x) = v { *x as u8 } else { 0 })
                            .collect(),
                    )
                } else {
                    V::Arr(Arc::new(out))
                }
            }
            Expr::Name(n) => match n.as_str() {
                "_index" => match cx.index {
                    Some(i) => V::Int(i),
                    None => return fail(None, "_index outside a repeat"),
                },
                "_" => match &cx.under {
                    Some(v) => v.clone(),
                    None => return fail(None, "_ outside repeat-until or valid"),
                },
                _ => self.member(cx.obj, n)?,
            },
            Expr::Attr(base, name) if name == "_sizeof" => self.sizeof_attr(cx, base, name)?,
            Expr::Attr(base, name) => {
                let b = self.eval(cx, base)?;
                self.attr_of(b, name)?
            }
            Expr::Call(base, name, args) => {
                let b = self.eval(cx, base)?;
                let mut a = Vec::new();
                for x in args {
                    a.push(self.eval(cx, x)?);
                }
                call(b, name, &a)?
            }
            Expr::Index(base, i) => {
                let b = self.eval(cx, base)?;
                let i = self.eval(cx, i)?;
                let V::Int(i) = i else {
                    return fail(None, format!("index {} is not an integer", show(&i)));
                };
                let got = match &b {
                    V::Arr(a) => usize::try_from(i).ok().and_then(|k| a.get(k)).cloned(),
                    V::Bytes(a) => usize::try_from(i)
                        .ok()
                        .and_then(|k| a.get(k))
                        .map(|x| V::Int(i128::from(*x))),
                    _ => return fail(None, format!("{} cannot be indexed", show(&b))),
                };
                match got {
                    Some(v) => v,
                    None => return fail(None, format!("index {i} is out of range")),
                }
            }
            Expr::Neg(x) => match self.eval(cx, x)? {
                V::Int(v) => V::Int(-v),
                V::Float(v) => V::Float(-v),
                o => return fail(None, format!("-{}", show(&o))),
            },
            Expr::Inv(x) => match self.eval(cx, x)? {
                V::Int(v) => V::Int(!v),
                o => return fail(None, format!("~{}", show(&o))),
            },
            Expr::Not(x) => {
                let v = self.eval(cx, x)?;
                V::Bool(!test(&v)?)
            }
            Expr::If(c, a, b) => {
                let v = self.eval(cx, c)?;
                if test(&v)? {
                    self.eval(cx, a)?
                } else {
                    self.eval(cx, b)?
                }
            }
            Expr::Cast(x, _) => self.eval(cx, x)?,
            Expr::SizeOf(name) => self.sizeof_type(cx, name)?,
            Expr::Enum(path, member) => {
                let ty = cx.obj.ty;
                let Some(en) = self.spec.lookup_enum(ty, path) else {
                    return fail(None, format!("unknown enum {}", path.join("::")));
                };
                match en.value_of(member) {
                    Some(v) => V::Enum(en, v),
                    None => return fail(None, format!("enum {} has no {member}", path.join("::"))),
                }
            }
            Expr::Bin(op, a, b) => {
                let x = self.eval(cx, a)?;
                match op {
                    Op::And => {
                        if !test(&x)? {
                            return Ok(V::Bool(false));
                        }
                        let y = self.eval(cx, b)?;
                        return Ok(V::Bool(test(&y)?));
                    }
                    Op::Or => {
                        if test(&x)? {
                            return Ok(V::Bool(true));
                        }
                        let y = self.eval(cx, b)?;
                        return Ok(V::Bool(test(&y)?));
                    }
                    _ => {}
                }
                let y = self.eval(cx, b)?;
                self.binary(*op, x, y)?
            }
        })
    }

    pub(super) fn attr_of(&mut self, b: V, name: &str) -> Res<V> {
        Ok(match (&b, name) {
            (V::Obj(o), _) => return self.member(o, name),
            (V::Io(i), "pos") => V::Int(i128::from(self.io(*i)?.pos)),
            (V::Io(i), "size") => V::Int(i128::from(self.io(*i)?.len)),
            (V::Io(i), "eof") => {
                let s = self.io(*i)?;
                V::Bool(s.pos >= s.len && s.nbits == 0)
            }
            _ => return call(b, name, &[]),
        })
    }

    pub(super) fn equal(&self, a: &V, b: &V) -> Res<bool> {
        Ok(self.cmp(a, b)? == std::cmp::Ordering::Equal)
    }

    pub(super) fn cmp(&self, a: &V, b: &V) -> Res<std::cmp::Ordering> {
        use std::cmp::Ordering;
        let num = |v: &V| match v {
            V::Int(x) | V::Enum(_, x) => Some(*x as f64),
            V::Float(x) => Some(*x),
            _ => None,
        };
        Ok(match (a, b) {
            (V::Int(x) | V::Enum(_, x), V::Int(y) | V::Enum(_, y)) => x.cmp(y),
            (V::Bool(x), V::Bool(y)) => x.cmp(y),
            (V::Str(x), V::Str(y)) => x.cmp(y),
            (V::Bytes(x), V::Bytes(y)) => x.cmp(y),
            (V::Obj(x), V::Obj(y)) => Arc::as_ptr(x).cmp(&Arc::as_ptr(y)),
            (V::Null, V::Null) => Ordering::Equal,
            _ => match (num(a), num(b)) {
                (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Less),
                _ => {
                    return fail(
                        None,
                        format!("{} and {} cannot be compared", show(a), show(b)),
                    )
                }
            },
        })
    }

    pub(super) fn binary(&self, op: Op, x: V, y: V) -> Res<V> {
        use std::cmp::Ordering::*;
        match op {
            Op::Eq => return Ok(V::Bool(self.equal(&x, &y)?)),
            Op::Ne => return Ok(V::Bool(!self.equal(&x, &y)?)),
            Op::Lt => return Ok(V::Bool(self.cmp(&x, &y)? == Less)),
            Op::Le => return Ok(V::Bool(self.cmp(&x, &y)? != Greater)),
            Op::Gt => return Ok(V::Bool(self.cmp(&x, &y)? == Greater)),
            Op::Ge => return Ok(V::Bool(self.cmp(&x, &y)? != Less)),
            _ => {}
        }
        let over = || fail(None, format!("{op:?} overflows"));
        match (x, y) {
            (V::Int(a) | V::Enum(_, a), V::Int(b) | V::Enum(_, b)) => Ok(V::Int(match op {
                Op::Add => match a.checked_add(b) {
                    Some(v) => v,
                    None => return over(),
                },
                Op::Sub => match a.checked_sub(b) {
                    Some(v) => v,
                    None => return over(),
                },
                Op::Mul => match a.checked_mul(b) {
                    Some(v) => v,
                    None => return over(),
                },
                Op::Div => {
                    if b == 0 {
                        return fail(None, "division by zero");
                    }
                    floor_div(a, b)
                }
                Op::Mod => {
                    if b == 0 {
                        return fail(None, "modulo by zero");
                    }
                    a.rem_euclid(b)
                }
                Op::Shl => {
                    if !(0..128).contains(&b) {
                        return over();
                    }
                    a << b
                }
                Op::Shr => {
                    if b < 0 {
                        return over();
                    }
                    if b >= 128 {
                        if a < 0 {
                            -1
                        } else {
                            0
                        }
                    } else {
                        a >> b
                    }
                }
                Op::BitAnd => a & b,
                Op::BitOr => a | b,
                Op::BitXor => a ^ b,
                _ => return fail(None, format!("{op:?} on integers")),
            })),
            (V::Str(a), V::Str(b)) if op == Op::Add => {
                Ok(V::Str(Arc::from(format!("{a}{b}").as_str())))
            }
            (V::Bool(a), V::Bool(b)) if matches!(op, Op::BitAnd | Op::BitOr | Op::BitXor) => {
                Ok(V::Bool(match op {
                    Op::BitAnd => a & b,
                    Op::BitOr => a | b,
                    _ => a ^ b,
                }))
            }
            (a, b) => {
                let f = |v: &V| match v {
                    V::Int(x) => Some(*x as f64),
                    V::Float(x) => Some(*x),
                    _ => None,
                };
                match (f(&a), f(&b)) {
                    (Some(p), Some(q)) => Ok(V::Float(match op {
                        Op::Add => p + q,
                        Op::Sub => p - q,
                        Op::Mul => p * q,
                        Op::Div => p / q,
                        Op::Mod => p.rem_euclid(q),
                        _ => return fail(None, format!("{op:?} on floats")),
                    })),
                    _ => fail(None, format!("{op:?} on {} and {}", show(&a), show(&b))),
                }
            }
        }
    }
}

/// The size in bytes of a primitive type named as in `sizeof<u4>`.
pub(super) fn prim_size(name: &str) -> Option<u64> {
    let (kind, rest) = name.split_at_checked(1)?;
    let digits = rest.trim_end_matches(['l', 'b', 'e']);
    let n: u64 = digits.parse().ok()?;
    match kind {
        "u" | "s" if [1, 2, 4, 8].contains(&n) => Some(n),
        "f" if [4, 8].contains(&n) => Some(n),
        "b" if (1..=64).contains(&n) => Some(n.div_ceil(8)),
        _ => None,
    }
}

/// The size of type `ty` where it is the same for every object: each seq
/// attribute's size fixed (a primitive, `contents`, a literal `size`, a
/// literal `repeat-expr` of such, a user type of fixed size), none
/// conditional or placed elsewhere; bit fields packed together.
pub(super) fn fixed_size(spec: &Spec, ty: usize, depth: u32) -> Option<u64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let t = spec.types.get(ty)?;
    let mut bytes = 0u64;
    let mut bits = 0u64;
    for a in &t.seq {
        if a.cond.is_some() || a.pos.is_some() || a.io.is_some() || a.size_eos {
            return None;
        }
        let count = match &a.repeat {
            Repeat::No => 1,
            Repeat::Expr(Expr::Int(n)) => u64::try_from(*n).ok()?,
            _ => return None,
        };
        if let Type::Prim(Prim::B(n, _)) = a.ty {
            if a.size.is_none() && count == 1 {
                bits += u64::from(n);
                continue;
            }
        }
        bytes = bytes.checked_add(bits.div_ceil(8))?;
        bits = 0;
        let one = if let Some(c) = &a.contents {
            c.len() as u64
        } else if let Some(e) = &a.size {
            match e {
                Expr::Int(n) => u64::try_from(*n).ok()?,
                _ => return None,
            }
        } else {
            match &a.ty {
                Type::Prim(Prim::U(n, _) | Prim::S(n, _) | Prim::F(n, _)) => u64::from(*n),
                Type::User { path, args } if args.is_empty() => {
                    fixed_size(spec, spec.lookup(ty, path)?, depth + 1)?
                }
                _ => return None,
            }
        };
        bytes = bytes.checked_add(one.checked_mul(count)?)?;
    }
    bytes.checked_add(bits.div_ceil(8))
}

/// Integer division rounding down (toward negative infinity).
pub fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// [`truth`] as a failure where the value is no boolean.
pub(super) fn test(v: &V) -> Res<bool> {
    truth(v).map_err(|m| Fail {
        at: None,
        msg: m,
        placed: false,
    })
}

/// Methods and properties of values that are not objects or streams.
pub(super) fn call(b: V, name: &str, args: &[V]) -> Res<V> {
    let int_arg = |k: usize| match args.get(k) {
        Some(V::Int(v)) => Some(*v),
        _ => None,
    };
    Ok(match (&b, name) {
        (V::Arr(a), "size" | "length") => V::Int(a.len() as i128),
        (V::Bytes(a), "size" | "length" | "_sizeof") => V::Int(a.len() as i128),
        (V::Str(s), "length") => V::Int(s.chars().count() as i128),
        (V::Str(s), "reverse") => V::Str(Arc::from(s.chars().rev().collect::<String>().as_str())),
        (V::Str(s), "substring") => {
            let (Some(from), Some(to)) = (int_arg(0), int_arg(1)) else {
                return fail(None, "substring(from, to) takes two integers");
            };
            let out: String = s
                .chars()
                .skip(from.max(0) as usize)
                .take((to - from).max(0) as usize)
                .collect();
            V::Str(Arc::from(out.as_str()))
        }
        (V::Str(s), "to_i") => {
            let radix = int_arg(0).unwrap_or(10);
            let r = u32::try_from(radix).unwrap_or(10);
            match i128::from_str_radix(s.trim(), r) {
                Ok(v) => V::Int(v),
                Err(_) => return fail(None, format!("{s:?} is not a number in base {r}")),
            }
        }
        (V::Str(_), "to_s") => b.clone(),
        (V::Int(v), "to_s") => V::Str(Arc::from(v.to_string().as_str())),
        (V::Int(_), "to_i") => b.clone(),
        (V::Float(f), "to_i") => V::Int(f.trunc() as i128),
        (V::Bool(x), "to_i") => V::Int(i128::from(*x)),
        (V::Enum(_, v), "to_i") => V::Int(*v),
        (V::Bytes(a), "to_s") => {
            let enc = match args.first() {
                Some(V::Str(e)) => e.to_string(),
                _ => "UTF-8".into(),
            };
            V::Str(Arc::from(decode(a, &enc).as_str()))
        }
        (V::Bytes(a), "first") => a.first().map_or(V::Null, |x| V::Int(i128::from(*x))),
        (V::Bytes(a), "last") => a.last().map_or(V::Null, |x| V::Int(i128::from(*x))),
        (V::Bytes(a), "min") => a.iter().min().map_or(V::Null, |x| V::Int(i128::from(*x))),
        (V::Bytes(a), "max") => a.iter().max().map_or(V::Null, |x| V::Int(i128::from(*x))),
        (V::Arr(a), "first") => a.first().cloned().unwrap_or(V::Null),
        (V::Arr(a), "last") => a.last().cloned().unwrap_or(V::Null),
        (V::Arr(a), "min" | "max") => {
            let mut best: Option<&V> = None;
            for v in a.iter() {
                best = match best {
                    None => Some(v),
                    Some(b) => {
                        let o = match (v, b) {
                            (V::Int(x), V::Int(y)) => x.cmp(y),
                            (V::Str(x), V::Str(y)) => x.cmp(y),
                            _ => return fail(None, "min/max of values that do not compare"),
                        };
                        let take = if name == "min" {
                            o == std::cmp::Ordering::Less
                        } else {
                            o == std::cmp::Ordering::Greater
                        };
                        if take {
                            Some(v)
                        } else {
                            Some(b)
                        }
                    }
                };
            }
            best.cloned().unwrap_or(V::Null)
        }
        _ => return fail(None, format!("{} has no {name}", show(&b))),
    })
}
