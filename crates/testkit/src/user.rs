//! A real non-root user for a test, made with `useradd` and removed with
//! `userdel` when dropped, so tests check what an ordinary user may do (open
//! a flow, map a buffer) rather than what root may.

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// A system user with no home and no login shell, named uniquely per test.
#[derive(Debug)]
pub struct TempUser {
    /// Its name.
    pub name: String,
    /// Its uid.
    pub uid: u32,
    /// Its primary gid.
    pub gid: u32,
}

/// Users made by this process so far (for unique names).
static MADE: AtomicU32 = AtomicU32::new(0);

fn id(flag: &str, name: &str) -> u32 {
    let out = Command::new("id").args([flag, name]).output().expect("id");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("id {flag} {name}: {}", String::from_utf8_lossy(&out.stderr)))
}

impl TempUser {
    /// Makes a user (needs root and `useradd`). Names are short: `useradd`
    /// takes at most 32 characters.
    pub fn new() -> TempUser {
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let name = format!("nst{}u{n}", std::process::id());
        let out = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
            ])
            .arg(&name)
            .output()
            .expect("useradd");
        assert!(
            out.status.success(),
            "useradd {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        TempUser {
            uid: id("-u", &name),
            gid: id("-g", &name),
            name,
        }
    }

    /// `setpriv` arguments that run the rest of a command line as this user,
    /// with no supplementary groups and no capabilities.
    pub fn setpriv(&self) -> Vec<String> {
        vec![
            "setpriv".into(),
            format!("--reuid={}", self.uid),
            format!("--regid={}", self.gid),
            "--clear-groups".into(),
            "--inh-caps=-all".into(),
            "--".into(),
        ]
    }
}

impl Default for TempUser {
    fn default() -> TempUser {
        TempUser::new()
    }
}

impl Drop for TempUser {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(&self.name).output();
    }
}
