//! The AFS services over Rx (file server, callbacks, protection, volume
//! location, Kerberos authentication, volumes, basic overseer and their Ubik
//! database calls): which arguments each call and reply prints, from
//! tcpdump 4.99's `fs_print` ... `ubik_reply_print`.

use super::fields::F::{self, *};
use super::tables::{self, name};
use super::{Stop, DATA, HDR, R};
use crate::summary::{g1, g4, out, Printer};
use std::net::Ipv4Addr;

/// The AFS service on an Rx port.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Svc {
    Fs,
    Cb,
    Pt,
    Vldb,
    Kauth,
    Vol,
    Bos,
}

impl Svc {
    fn of_port(port: u16) -> Option<Svc> {
        Some(match port {
            7000 => Svc::Fs,
            7001 => Svc::Cb,
            7002 => Svc::Pt,
            7003 => Svc::Vldb,
            7004 => Svc::Kauth,
            7005 => Svc::Vol,
            7007 => Svc::Bos,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Svc::Fs => "fs",
            Svc::Cb => "cb",
            Svc::Pt => "pt",
            Svc::Vldb => "vldb",
            Svc::Kauth => "kauth",
            Svc::Vol => "vol",
            Svc::Bos => "bos",
        }
    }

    fn ops(self) -> &'static [(u32, &'static str)] {
        match self {
            Svc::Fs => tables::FS_REQ,
            Svc::Cb => tables::CB_REQ,
            Svc::Pt => tables::PT_REQ,
            Svc::Vldb => tables::VLDB_REQ,
            Svc::Kauth => tables::KAUTH_REQ,
            Svc::Vol => tables::VOL_REQ,
            Svc::Bos => tables::BOS_REQ,
        }
    }

    /// The database services whose Ubik opcodes print as Ubik's.
    fn has_ubik(self) -> bool {
        matches!(self, Svc::Pt | Svc::Vldb | Svc::Kauth)
    }
}

fn is_ubik(op: u32) -> bool {
    (10000..=10007).contains(&op) || (20000..=20013).contains(&op)
}

/// `tok2str(table, "op#%u", op)`.
fn op_name(table: &[(u32, &'static str)], op: u32) -> String {
    name(table, op).map_or_else(|| format!("op#{op}"), str::to_string)
}

const NAME: u32 = 256;
const PRNAME: u32 = 64;
const KANAME: u32 = 64;
const VLNAME: usize = 65;

/// The arguments of a call.
fn call_fields(svc: Svc, op: u32) -> &'static [F] {
    match (svc, op) {
        (Svc::Fs, 130) => &[Fid, Lit(" offset"), UInt, Lit(" length"), UInt],
        (Svc::Fs, 131 | 132 | 143 | 144 | 145 | 156 | 157 | 158) => &[Fid],
        (Svc::Fs, 135) => &[Fid, Store],
        (Svc::Fs, 133) => &[
            Fid,
            Store,
            Lit(" offset"),
            UInt,
            Lit(" length"),
            UInt,
            Lit(" flen"),
            UInt,
        ],
        (Svc::Fs, 134) => &[Fid, Acl],
        (Svc::Fs, 137 | 141) => &[Fid, Str(NAME), Store],
        (Svc::Fs, 136 | 142) => &[Fid, Str(NAME)],
        (Svc::Fs, 138) => &[Lit(" old"), Fid, Str(NAME), Lit(" new"), Fid, Str(NAME)],
        (Svc::Fs, 139) => &[Fid, Str(NAME), Lit(" link to"), Str(NAME)],
        (Svc::Fs, 140) => &[Fid, Str(NAME), Lit(" link to"), Fid],
        (Svc::Fs, 148) => &[Str(NAME)],
        (Svc::Fs, 149 | 150) => &[Lit(" volid"), UInt],
        (Svc::Fs, 154) => &[Lit(" volname"), Str(NAME)],
        (Svc::Fs, 155 | 65536) => &[FidList],
        (Svc::Fs, 65537) => &[Fid, Lit(" offset"), U64, Lit(" length"), U64],
        (Svc::Fs, 65538) => &[
            Fid,
            Store,
            Lit(" offset"),
            U64,
            Lit(" length"),
            U64,
            Lit(" flen"),
            U64,
        ],
        (Svc::Fs, 65541) => &[Lit(" addr"), UInt],
        (Svc::Cb, 204) => &[FidList, CbList],
        (Svc::Cb, 214) => &[Lit(" afsuuid"), Uuid],
        (Svc::Pt, 500) => &[Str(PRNAME), Lit(" id"), Int, Lit(" oldid"), Int],
        (Svc::Pt, 501 | 506 | 508 | 512 | 514 | 517 | 518 | 519 | 530) => &[Lit(" id"), Int],
        (Svc::Pt, 502) => &[Lit(" pos"), Int],
        (Svc::Pt, 503 | 507 | 515) => &[Lit(" uid"), Int, Lit(" gid"), Int],
        (Svc::Pt, 504) => &[CharsList(PRNAME as usize)],
        (Svc::Pt, 505) => &[Lit(" ids:"), IntList],
        (Svc::Pt, 509) => &[Str(PRNAME), Lit(" flag"), Int, Lit(" oid"), Int],
        (Svc::Pt, 511) => &[Lit(" id"), Int, Lit(" gflag"), Int],
        (Svc::Pt, 513) => &[
            Lit(" id"),
            Int,
            Str(PRNAME),
            Lit(" oldid"),
            Int,
            Lit(" newid"),
            Int,
        ],
        (Svc::Pt, 520) => &[Lit(" id"), Int, Str(PRNAME)],
        (Svc::Vldb, 501 | 517) => &[Chars(VLNAME)],
        (Svc::Vldb, 502 | 503 | 507 | 508 | 509 | 518) => &[Lit(" volid"), Int, VolType],
        (Svc::Vldb, 504 | 519 | 524 | 527) => &[Str(VLNAME as u32)],
        (Svc::Vldb, 505) => &[Lit(" bump"), Int],
        (Svc::Vldb, 506 | 520) => &[Lit(" volid"), Int, VolType, Chars(VLNAME)],
        (Svc::Vldb, 510 | 521) => &[Lit(" index"), Int],
        (Svc::Kauth, 1 | 21 | 22 | 2 | 5 | 6 | 7 | 8 | 14 | 15) => {
            &[Lit(" principal"), Str(KANAME), Str(KANAME)]
        }
        (Svc::Kauth, 3 | 23) => &[
            Lit(" kvno"),
            Int,
            Lit(" domain"),
            Str(KANAME),
            Opaque,
            Lit(" principal"),
            Str(KANAME),
            Str(KANAME),
        ],
        (Svc::Kauth, 4) => &[
            Lit(" principal"),
            Str(KANAME),
            Str(KANAME),
            Lit(" kvno"),
            Int,
        ],
        (Svc::Kauth, 12) => &[Lit(" name"), Str(KANAME)],
        (Svc::Vol, _) => vol_call_fields(op),
        (Svc::Bos, 80) => &[Lit(" type"), Str(NAME), Lit(" instance"), Str(NAME)],
        (Svc::Bos, 81 | 83 | 85 | 87 | 88 | 93 | 96 | 97 | 104 | 106 | 108 | 112 | 114) => {
            &[Str(NAME)]
        }
        (Svc::Bos, 82 | 98) => &[Str(NAME), Lit(" status"), Int],
        (Svc::Bos, 86) => &[Str(NAME), Lit(" num"), Int],
        (Svc::Bos, 84 | 89 | 90 | 91 | 92 | 95) => &[Int],
        (Svc::Bos, 105) => &[
            Str(NAME),
            Lit(" size"),
            Int,
            Lit(" flags"),
            Int,
            Lit(" date"),
            Int,
        ],
        _ => &[],
    }
}

fn vol_call_fields(op: u32) -> &'static [F] {
    const TRANS: &[F] = &[Lit(" trans"), UInt];
    const FROM: &[F] = &[Lit(" fromtrans"), UInt, Lit(" fromdate"), Date];
    match op {
        100 => &[
            Lit(" partition"),
            UInt,
            Lit(" name"),
            Str(NAME),
            Lit(" type"),
            UInt,
            Lit(" parent"),
            UInt,
        ],
        101 | 107 | 104 => TRANS,
        102 => &[Lit(" totrans"), UInt, Lit(" flags"), UInt],
        103 => &[
            Lit(" fromtrans"),
            UInt,
            Lit(" fromdate"),
            Date,
            Dest,
            Lit(" desttrans"),
            Int,
        ],
        105 => &[
            Lit(" trans"),
            UInt,
            Lit(" purgevol"),
            UInt,
            Lit(" newtype"),
            UInt,
            Lit(" newname"),
            Str(NAME),
        ],
        106 => &[Lit(" trans"), UInt, Lit(" flags"), UInt],
        108 => &[
            Lit(" vol"),
            UInt,
            Lit(" partition"),
            UInt,
            Lit(" flags"),
            UInt,
        ],
        109 | 655537 => FROM,
        110 => &[Lit(" index"), UInt],
        111 => &[Lit(" tid"), UInt, Lit(" newsite"), UInt],
        112 | 113 => &[Lit(" tid")],
        114 => &[
            Lit(" name"),
            Str(NAME),
            Lit(" type"),
            UInt,
            Lit(" pid"),
            UInt,
            Lit(" cloneid"),
            UInt,
        ],
        116 => &[Lit(" partition"), UInt, Lit(" flags"), UInt],
        117 => &[
            Lit(" tid"),
            UInt,
            Lit(" name"),
            Str(NAME),
            Lit(" type"),
            UInt,
            Lit(" pid"),
            UInt,
            Lit(" clone"),
            UInt,
            Lit(" backup"),
            UInt,
        ],
        119 => &[Lit(" name"), Str(NAME)],
        120 | 126 => &[Lit(" tid"), UInt],
        121 | 122 | 124 | 125 | 65536 => &[Lit(" partid"), UInt, Lit(" volid"), UInt],
        123 => &[Lit(" tid"), UInt, Lit(" date"), Date],
        128 => &[Lit(" fromtrans"), UInt, Lit(" fromdate"), Date, DestList],
        65538 => &[
            Lit(" fromtrans"),
            UInt,
            Lit(" fromdate"),
            Date,
            Lit(" flags"),
            UInt,
        ],
        _ => &[],
    }
}

/// What a data reply carries.
fn reply_fields(svc: Svc, op: u32) -> &'static [F] {
    match (svc, op) {
        (Svc::Fs, 131) => &[Acl],
        (Svc::Fs, 137 | 141) => &[Lit(" new"), Fid],
        (Svc::Fs, 151) => &[Lit(" root volume"), Str(NAME)],
        (Svc::Fs, 153) => &[Date],
        (Svc::Cb, 213) => &[Uuid],
        (Svc::Pt, 504) => &[Lit(" ids:"), IntList],
        (Svc::Pt, 505) => &[CharsList(PRNAME as usize)],
        (Svc::Pt, 508 | 514 | 517 | 518 | 519) => &[IntList],
        (Svc::Pt, 510) => &[Lit(" maxuid"), Int, Lit(" maxgid"), Int],
        (Svc::Vldb, 505) => &[Lit(" newvol"), UInt],
        (Svc::Vol, 100) => &[Lit(" volid"), UInt, Lit(" trans"), UInt],
        (Svc::Vol, 104 | 107) => &[UInt],
        (Svc::Vol, 105) => &[Lit(" newvol"), UInt],
        (Svc::Vol, 108) => &[Lit(" trans"), UInt],
        (Svc::Vol, 110) => &[Lit(" volume"), UInt, Lit(" partition"), UInt],
        (Svc::Vol, 112) => &[Str(NAME)],
        (Svc::Vol, 113) => &[
            Lit(" volid"),
            UInt,
            Lit(" nextuniq"),
            UInt,
            Lit(" type"),
            UInt,
            Lit(" parentid"),
            UInt,
            Lit(" clone"),
            UInt,
            Lit(" backup"),
            UInt,
            Lit(" restore"),
            UInt,
            Lit(" maxquota"),
            UInt,
            Lit(" minquota"),
            UInt,
            Lit(" owner"),
            UInt,
            Lit(" create"),
            Date,
            Lit(" access"),
            Date,
            Lit(" update"),
            Date,
            Lit(" expire"),
            Date,
            Lit(" backup"),
            Date,
            Lit(" copy"),
            Date,
        ],
        (Svc::Vol, 116 | 121) => &[VolList],
        _ => &[],
    }
}

fn ubik_call_fields(op: u32) -> &'static [F] {
    const TID: &[F] = &[Lit(" tid"), UbikV];
    match op {
        10000 => &[
            SyncSite,
            Lit(" votestart"),
            Date,
            Lit(" dbversion"),
            UbikV,
            Lit(" tid"),
            UbikV,
        ],
        10003 => &[Lit(" site"), UInt],
        20000 | 20001 | 20007 | 20008 | 20010 => TID,
        20002 => &[
            Lit(" tid"),
            UbikV,
            Lit(" file"),
            Int,
            Lit(" pos"),
            Int,
            Lit(" length"),
            Int,
            Ignore,
        ],
        20003 => &[Lit(" tid"), UbikV, Lit(" file"), Int, Lit(" pos"), Int],
        20005 => &[Lit(" file"), Int],
        20006 => &[
            Lit(" file"),
            Int,
            Lit(" length"),
            Int,
            Lit(" dbversion"),
            UbikV,
        ],
        20009 => &[Lit(" tid"), UbikV, Lit(" file"), Int, Lit(" length"), Int],
        20012 => &[
            Lit(" tid"),
            UbikV,
            Lit(" oldversion"),
            UbikV,
            Lit(" newversion"),
            UbikV,
        ],
        _ => &[],
    }
}

impl Printer<'_> {
    /// Runs `f` and, when it stops at a service-level truncation, prints the
    /// service's marker (` [|fs]`).
    fn rx_svc(&mut self, label: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let r = f(self);
        if let Err(Stop::Svc) = r {
            out!(self, " [|{label}]");
        }
        r
    }

    /// A call to the service on `dport` (`fs_print` ...).
    pub(super) fn rx_call(&mut self, p: &[u8], length: u32, dport: u16) -> R {
        let Some(svc) = Svc::of_port(dport) else {
            return Ok(());
        };
        if length as usize <= HDR {
            return Ok(());
        }
        let op = g4(p, HDR)?;
        if svc.has_ubik() {
            out!(self, " {}", svc.name());
            if is_ubik(op) {
                return self.ubik_call(p, op);
            }
            out!(self, " call {}", op_name(svc.ops(), op));
        } else {
            out!(self, " {} call {}", svc.name(), op_name(svc.ops(), op));
        }
        let mut at = HDR + 4;
        self.rx_svc(svc.name(), |s| {
            s.rx_fields(p, &mut at, call_fields(svc, op))
        })
    }

    /// `ubik_print`.
    fn ubik_call(&mut self, p: &[u8], op: u32) -> R {
        out!(self, " ubik call {}", op_name(tables::UBIK_REQ, op));
        let mut at = HDR + 4;
        self.rx_svc("ubik", |s| s.rx_fields(p, &mut at, ubik_call_fields(op)))
    }

    /// A reply from the service on `sport` to a call of opcode `op`.
    pub(super) fn rx_reply(&mut self, p: &[u8], length: u32, sport: u16, op: u32) -> R {
        let Some(svc) = Svc::of_port(sport) else {
            return Ok(());
        };
        // The protection and location servers' printers test `<`, the
        // others `<=`.
        let short = match svc {
            Svc::Pt | Svc::Vldb => (length as usize) < HDR,
            _ => length as usize <= HDR,
        };
        if short {
            return Ok(());
        }
        if svc.has_ubik() {
            out!(self, " {}", svc.name());
            if is_ubik(op) {
                return self.ubik_reply(p, length, op);
            }
            out!(self, " reply {}", op_name(svc.ops(), op));
        } else {
            out!(self, " {} reply {}", svc.name(), op_name(svc.ops(), op));
        }
        let ty = g1(p, 20)?;
        let mut at = HDR;
        self.rx_svc(svc.name(), |s| {
            if ty == DATA {
                match (svc, op) {
                    (Svc::Vldb, 510 | 503 | 504) => s.vldb_entry(p, &mut at, op == 510, 8),
                    (Svc::Vldb, 521 | 529 | 518 | 519) => {
                        s.vldb_entry(p, &mut at, matches!(op, 521 | 529), 13)
                    }
                    (Svc::Vldb, 526 | 527) => s.vldb_entry_u(p, &mut at),
                    _ => s.rx_fields(p, &mut at, reply_fields(svc, op)),
                }
            } else if svc == Svc::Fs {
                if ty == super::ABORT {
                    let code = g4(p, at)?;
                    match name(tables::FS_ERRORS, code) {
                        Some(n) => out!(s, " error {n}"),
                        None => out!(s, " error #{}", code as i32),
                    }
                } else {
                    out!(s, " strange fs reply of type {ty}");
                }
                Ok(())
            } else {
                s.rx_fields(p, &mut at, &[Lit(" errcode"), Int])
            }
        })
    }

    /// `ubik_reply_print`.
    fn ubik_reply(&mut self, p: &[u8], length: u32, op: u32) -> R {
        if (length as usize) < HDR {
            return Ok(());
        }
        out!(self, " ubik reply {}", op_name(tables::UBIK_REQ, op));
        let ty = g1(p, 20)?;
        let mut at = HDR;
        let fields: &[F] = match (ty == DATA, op) {
            (true, 10000) => &[Lit(" vote no")],
            (true, 20004) => &[Lit(" dbversion"), UbikV],
            (true, _) => &[],
            (false, 10000) => &[Lit(" vote yes until"), Date],
            (false, _) => &[Lit(" errcode"), Int],
        };
        self.rx_svc("ubik", |s| s.rx_fields(p, &mut at, fields))
    }

    /// A VLDB entry with `n` servers (8 for the old calls, 13 for the `-n`
    /// ones), after a count and next index for the list calls.
    fn vldb_entry(&mut self, p: &[u8], at: &mut usize, listed: bool, n: usize) -> R {
        if listed {
            self.rx_fields(p, at, &[Lit(" count"), Int, Lit(" nextindex"), Int])?;
        }
        self.rx_fields(p, at, &[Chars(VLNAME)])?;
        if n == 8 {
            // The old entry has a word between the name and the count.
            check4(p, *at)?;
            *at += 4;
        }
        let nservers = g4(p, *at)?;
        *at += 4;
        out!(self, " numservers {nservers} servers");
        for i in 0..n {
            check4(p, *at)?;
            if (i as u32) < nservers {
                out!(self, " {}", Ipv4Addr::from(g4(p, *at)?));
            }
            *at += 4;
        }
        self.vldb_tail(p, at, nservers, n)
    }

    /// The partitions, flags and volume ids that end every VLDB entry.
    fn vldb_tail(&mut self, p: &[u8], at: &mut usize, nservers: u32, n: usize) -> R {
        out!(self, " partitions");
        for i in 0..n {
            let j = g4(p, *at)?;
            if (i as u32) < nservers {
                if j <= 26 {
                    out!(self, " {}", (b'a' + j as u8) as char);
                } else {
                    out!(self, " {j}");
                }
            }
            *at += 4;
        }
        super::fields::check_len(p, *at, n * 4)?;
        *at += n * 4;
        self.rx_fields(
            p,
            at,
            &[
                Lit(" rwvol"),
                UInt,
                Lit(" rovol"),
                UInt,
                Lit(" backup"),
                UInt,
            ],
        )
    }

    /// The `-u` VLDB entry, whose servers are UUIDs.
    fn vldb_entry_u(&mut self, p: &[u8], at: &mut usize) -> R {
        self.rx_fields(p, at, &[Chars(VLNAME)])?;
        let nservers = g4(p, *at)?;
        *at += 4;
        out!(self, " numservers {nservers} servers");
        for i in 0..13u32 {
            if i < nservers {
                self.rx_fields(p, at, &[Lit(" afsuuid"), Uuid])?;
            } else {
                super::fields::check_len(p, *at, 44)?;
                *at += 44;
            }
        }
        super::fields::check_len(p, *at, 4 * 13)?;
        *at += 4 * 13;
        self.vldb_tail(p, at, nservers, 13)
    }
}

fn check4(p: &[u8], at: usize) -> R {
    super::fields::check_len(p, at, 4)
}
