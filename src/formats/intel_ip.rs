//! Intel GPU IP versions (major.minor.revision, as ocloc's `-device`
//! accepts them) and the device names ocloc gives each: what an ocloc fat
//! binary's member names mean. ocloc names each member
//! `POINTER_SIZE.MAJOR.MINOR.REVISION` (`64.12.60.7`); the table is what
//! `ocloc ids NAME` prints for every device name `ocloc compile --help`
//! lists (compute-runtime 22.43), with the release each version belongs
//! to (`ocloc ids RELEASE`); the tests check both against the installed
//! ocloc.

/// An IP version: `(major, minor, revision)`.
pub type Ip = (u32, u32, u32);

/// An IP version and the device names ocloc gives it.
pub const IP_VERSIONS: &[(Ip, &[&str])] = &[
    ((8, 0, 0), &["bdw"]),
    ((9, 0, 9), &["skl"]),
    ((9, 1, 9), &["kbl"]),
    ((9, 2, 9), &["cfl"]),
    ((9, 3, 0), &["apl", "bxt"]),
    ((9, 4, 0), &["glk"]),
    ((9, 5, 0), &["whl"]),
    ((9, 6, 0), &["aml"]),
    ((9, 7, 0), &["cml"]),
    ((11, 0, 0), &["icllp"]),
    ((11, 1, 0), &["lkf"]),
    ((11, 2, 0), &["ehl", "jsl"]),
    ((12, 0, 0), &["tgllp"]),
    ((12, 1, 0), &["rkl"]),
    ((12, 2, 0), &["adl-s"]),
    ((12, 3, 0), &["adl-p"]),
    ((12, 4, 0), &["adl-n"]),
    ((12, 10, 0), &["dg1"]),
    ((12, 55, 8), &["acm-g10", "ats-m150", "dg2-g10"]),
    ((12, 56, 5), &["acm-g11", "ats-m75", "dg2-g11"]),
    ((12, 57, 0), &["acm-g12", "dg2-g12"]),
    ((12, 60, 1), &["pvc-sdv"]),
    ((12, 60, 7), &["pvc"]),
];

/// The releases `ocloc compile --help` lists and the IP versions `ocloc ids
/// RELEASE` gives each (the family `xe` is xe-hp, xe-hpg and xe-hpc).
pub const RELEASES: &[(&str, &[Ip])] = &[
    ("gen8", &[(8, 0, 0)]),
    (
        "gen9",
        &[
            (9, 0, 9),
            (9, 1, 9),
            (9, 2, 9),
            (9, 3, 0),
            (9, 4, 0),
            (9, 5, 0),
            (9, 6, 0),
            (9, 7, 0),
        ],
    ),
    ("gen11", &[(11, 0, 0), (11, 1, 0), (11, 2, 0)]),
    (
        "gen12lp",
        &[
            (12, 0, 0),
            (12, 1, 0),
            (12, 2, 0),
            (12, 3, 0),
            (12, 4, 0),
            (12, 10, 0),
        ],
    ),
    ("xe-hp", &[(12, 50, 4)]),
    (
        "xe-hpg",
        &[
            (12, 55, 0),
            (12, 55, 1),
            (12, 55, 4),
            (12, 55, 8),
            (12, 56, 0),
            (12, 56, 4),
            (12, 56, 5),
            (12, 57, 0),
        ],
    ),
    (
        "xe-hpc",
        &[
            (12, 60, 0),
            (12, 60, 1),
            (12, 60, 3),
            (12, 60, 5),
            (12, 60, 6),
            (12, 60, 7),
        ],
    ),
];

/// The release IP version `v` belongs to, if the table knows it.
pub fn release(v: Ip) -> Option<&'static str> {
    RELEASES
        .iter()
        .find(|(_, vs)| vs.contains(&v))
        .map(|(r, _)| *r)
}

/// The device names of IP version `v`, if the table knows it.
pub fn devices(v: Ip) -> Option<&'static [&'static str]> {
    IP_VERSIONS.iter().find(|(k, _)| *k == v).map(|(_, d)| *d)
}

/// The pointer size and IP version an ocloc fat binary member's name
/// gives (`64.12.60.7` → 64, (12, 60, 7)).
pub fn member(name: &str) -> Option<(u32, Ip)> {
    let mut it = name.split('.');
    let mut next = || -> Option<u32> {
        let p = it.next()?;
        if p.is_empty() || p.len() > 9 || !p.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        p.parse().ok()
    };
    let bits = next()?;
    let v = (next()?, next()?, next()?);
    if it.next().is_some() || !matches!(bits, 32 | 64) {
        return None;
    }
    Some((bits, v))
}

/// What a fat binary member's name says: `pvc (64-bit, IP version
/// 12.60.7)`, or None for a name of another form.
pub fn describe(name: &str) -> Option<String> {
    let (bits, v) = member(name)?;
    let ip = format!("IP version {}.{}.{}", v.0, v.1, v.2);
    let rel = release(v).map(|r| format!("{r}, ")).unwrap_or_default();
    Some(match devices(v) {
        Some(d) => format!("{} ({rel}{bits}-bit, {ip})", d.join(", ")),
        None => format!("{ip} ({rel}{bits}-bit), a device this table does not name"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_names() {
        assert_eq!(member("64.12.60.7"), Some((64, (12, 60, 7))));
        assert_eq!(member("32.12.0.0"), Some((32, (12, 0, 0))));
        assert_eq!(member("pad_0"), None);
        assert_eq!(member("64.12.60"), None);
        assert_eq!(member("64.12.60.7.1"), None);
        assert_eq!(member("16.12.60.7"), None);
        assert_eq!(
            describe("64.12.55.8").as_deref(),
            Some("acm-g10, ats-m150, dg2-g10 (xe-hpg, 64-bit, IP version 12.55.8)")
        );
        assert!(describe("64.99.1.2").unwrap().contains("does not name"));
        assert_eq!(
            describe("64.12.55.4").as_deref(),
            Some("IP version 12.55.4 (xe-hpg, 64-bit), a device this table does not name")
        );
    }
}
