//! The real libpcap, loaded once into a link-map namespace of its own.
//!
//! `dlmopen(LM_ID_NEWLM, ...)` gives the real library (and its libc, libdbus,
//! libsystemd) a namespace where the name `pcap_create` means the real
//! library's function: its internal calls through the PLT (`pcap_open_live`
//! calling `pcap_create`, `pcap_findalldevs` calling the platform hooks) bind
//! there and never come back into the shim. The price is a second libc in the
//! process: memory the real library allocates must be freed by it, and the
//! shim never hands it memory to free (lists it returns, such as
//! `pcap_list_datalinks`', are made by the real library on the proxy).
//! Where `dlmopen` fails, the library is opened with `dlopen(RTLD_DEEPBIND)`,
//! which gives the same binding for the real library's own symbols in the
//! default namespace.
//!
//! Which file: `NETSIFT_REAL_LIBPCAP`, else the first of the multiarch
//! directories' `libpcap.so.0.8` that is not this shim (compared by device and
//! inode, so a symlink or a copy of ours in a library directory is refused).

use crate::ffi::*;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::sync::OnceLock;

/// Why the real library is not there.
#[derive(Debug, Clone)]
pub(crate) struct LoadError(pub(crate) String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "netsift: cannot load the real libpcap: {}", self.0)
    }
}

macro_rules! real_fns {
    ($($name:ident: fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// The real library's functions the shim calls by name.
        pub(crate) struct Fns {
            $(pub(crate) $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }

        impl Fns {
            /// Looks every function up in `lib`.
            ///
            /// # Safety
            ///
            /// `lib` is a live handle of libpcap 1.10, whose functions have
            /// the signatures above.
            unsafe fn load(lib: *mut c_void) -> Result<Fns, LoadError> {
                Ok(Fns {
                    $($name: {
                        let p = lookup(lib, stringify!($name))?;
                        // SAFETY: the symbol is libpcap's function of this
                        // name, whose C signature is the one declared.
                        unsafe { std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) $(-> $ret)?>(p) }
                    },)*
                })
            }
        }
    };
}

type P = *mut PcapT;
type Fp = *mut BpfProgram;

real_fns! {
    bpf_image: fn(*const BpfInsn, c_int) -> *mut c_char;
    fflush: fn(*mut libc::FILE) -> c_int;
    pcap_activate: fn(P) -> c_int;
    pcap_breakloop: fn(P);
    pcap_bufsize: fn(P) -> c_int;
    pcap_can_set_rfmon: fn(P) -> c_int;
    pcap_close: fn(P);
    pcap_compile: fn(P, Fp, *const c_char, c_int, u32) -> c_int;
    pcap_compile_nopcap: fn(c_int, c_int, Fp, *const c_char, c_int, u32) -> c_int;
    pcap_create: fn(*const c_char, *mut c_char) -> P;
    pcap_datalink: fn(P) -> c_int;
    pcap_datalink_ext: fn(P) -> c_int;
    pcap_dispatch: fn(P, c_int, PcapHandler, *mut u8) -> c_int;
    pcap_dump_fopen: fn(P, *mut libc::FILE) -> *mut PcapDumper;
    pcap_dump_open: fn(P, *const c_char) -> *mut PcapDumper;
    pcap_dump_open_append: fn(P, *const c_char) -> *mut PcapDumper;
    pcap_file: fn(P) -> *mut libc::FILE;
    pcap_fileno: fn(P) -> c_int;
    pcap_findalldevs: fn(*mut *mut PcapIf, *mut c_char) -> c_int;
    pcap_freealldevs: fn(*mut PcapIf);
    pcap_freecode: fn(Fp);
    pcap_get_required_select_timeout: fn(P) -> *const libc::timeval;
    pcap_get_selectable_fd: fn(P) -> c_int;
    pcap_get_tstamp_precision: fn(P) -> c_int;
    pcap_geterr: fn(P) -> *mut c_char;
    pcap_getnonblock: fn(P, *mut c_char) -> c_int;
    pcap_inject: fn(P, *const c_void, usize) -> c_int;
    pcap_is_swapped: fn(P) -> c_int;
    pcap_list_datalinks: fn(P, *mut *mut c_int) -> c_int;
    pcap_list_tstamp_types: fn(P, *mut *mut c_int) -> c_int;
    pcap_loop: fn(P, c_int, PcapHandler, *mut u8) -> c_int;
    pcap_lookupnet: fn(*const c_char, *mut u32, *mut u32, *mut c_char) -> c_int;
    pcap_major_version: fn(P) -> c_int;
    pcap_minor_version: fn(P) -> c_int;
    pcap_next: fn(P, *mut PcapPkthdr) -> *const u8;
    pcap_next_ex: fn(P, *mut *mut PcapPkthdr, *mut *const u8) -> c_int;
    pcap_offline_filter: fn(*const BpfProgram, *const PcapPkthdr, *const u8) -> c_int;
    pcap_open_dead_with_tstamp_precision: fn(c_int, c_int, c_uint) -> P;
    pcap_open_live: fn(*const c_char, c_int, c_int, c_int, *mut c_char) -> P;
    pcap_perror: fn(P, *const c_char);
    pcap_sendpacket: fn(P, *const u8, c_int) -> c_int;
    pcap_set_buffer_size: fn(P, c_int) -> c_int;
    pcap_set_datalink: fn(P, c_int) -> c_int;
    pcap_set_immediate_mode: fn(P, c_int) -> c_int;
    pcap_set_promisc: fn(P, c_int) -> c_int;
    pcap_set_protocol_linux: fn(P, c_int) -> c_int;
    pcap_set_rfmon: fn(P, c_int) -> c_int;
    pcap_set_snaplen: fn(P, c_int) -> c_int;
    pcap_set_timeout: fn(P, c_int) -> c_int;
    pcap_set_tstamp_precision: fn(P, c_int) -> c_int;
    pcap_set_tstamp_type: fn(P, c_int) -> c_int;
    pcap_setdirection: fn(P, c_int) -> c_int;
    pcap_setfilter: fn(P, Fp) -> c_int;
    pcap_setnonblock: fn(P, c_int, *mut c_char) -> c_int;
    pcap_snapshot: fn(P) -> c_int;
    pcap_stats: fn(P, *mut PcapStat) -> c_int;
    pcap_statustostr: fn(c_int) -> *const c_char;
}

/// The loaded real library.
pub(crate) struct Real {
    /// The `dlmopen`/`dlopen` handle, for the trampolines' look-ups.
    lib: usize,
    /// Its functions.
    pub(crate) f: Fns,
    /// The file loaded.
    pub(crate) path: PathBuf,
    /// Whether it has a namespace of its own (else `RTLD_DEEPBIND`).
    pub(crate) isolated: bool,
}

impl Real {
    /// The address of the real library's symbol `name` (a function the shim
    /// passes through), if it has one.
    pub(crate) fn symbol(&self, name: &CStr) -> *mut c_void {
        // SAFETY: `lib` is a live handle (never closed) and `name` is a
        // NUL-terminated string.
        unsafe { libc::dlsym(self.lib as *mut c_void, name.as_ptr()) }
    }
}

static REAL: OnceLock<Result<Real, LoadError>> = OnceLock::new();

/// The real library, loaded on first use. With `NETSIFT_LIBPCAP_DEBUG` set,
/// the load says on stderr which file it took and how.
pub(crate) fn real() -> Result<&'static Real, &'static LoadError> {
    REAL.get_or_init(|| {
        let r = load();
        if std::env::var_os("NETSIFT_LIBPCAP_DEBUG").is_some() {
            let said = match &r {
                Ok(r) if r.isolated => {
                    format!("loaded {} in a namespace of its own", r.path.display())
                }
                Ok(r) => format!("loaded {} with RTLD_DEEPBIND", r.path.display()),
                Err(e) => e.to_string(),
            };
            eprintln!("netsift-libpcap: {said}");
        }
        r
    })
    .as_ref()
}

/// The real library's functions, where it loaded.
pub(crate) fn fns() -> Option<&'static Fns> {
    real().ok().map(|r| &r.f)
}

/// The last `dlerror()` message.
fn dlerror() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated string valid until the
    // next dl call on this thread, which is after the copy.
    unsafe {
        let e = libc::dlerror();
        if e.is_null() {
            "unknown error".into()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

/// `dlsym(lib, name)`, or an error naming the missing symbol.
fn lookup(lib: *mut c_void, name: &str) -> Result<*mut c_void, LoadError> {
    let c = CString::new(name).expect("symbol names have no NUL");
    // SAFETY: `lib` is a live handle and `c` a NUL-terminated string.
    let p = unsafe { libc::dlsym(lib, c.as_ptr()) };
    if p.is_null() {
        return Err(LoadError(format!("no symbol {name}: {}", dlerror())));
    }
    Ok(p)
}

/// The multiarch triple's directory name.
fn triple() -> &'static str {
    if cfg!(target_arch = "aarch64") {
        "aarch64-linux-gnu"
    } else {
        "x86_64-linux-gnu"
    }
}

/// Where to look for the real library, in order.
pub(crate) fn candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("NETSIFT_REAL_LIBPCAP") {
        return vec![PathBuf::from(p)];
    }
    let t = triple();
    [
        format!("/usr/lib/{t}/libpcap.so.0.8"),
        format!("/lib/{t}/libpcap.so.0.8"),
        "/usr/lib64/libpcap.so.0.8".into(),
        "/usr/lib/libpcap.so.0.8".into(),
        "/lib64/libpcap.so.0.8".into(),
    ]
    .into_iter()
    .map(PathBuf::from)
    .collect()
}

/// The device and inode of this shim's own file.
fn own_identity() -> Option<(u64, u64)> {
    // SAFETY: Dl_info is plain data, valid zeroed; dladdr fills it for an
    // address inside this library (a function of ours), and dli_fname is a
    // NUL-terminated string the loader keeps.
    let name = unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(own_identity as *const c_void, &mut info) == 0 || info.dli_fname.is_null() {
            return None;
        }
        CStr::from_ptr(info.dli_fname)
            .to_string_lossy()
            .into_owned()
    };
    let m = std::fs::metadata(name).ok()?;
    Some((m.dev(), m.ino()))
}

/// The first candidate that exists and is not the shim.
fn find() -> Result<PathBuf, LoadError> {
    let own = own_identity();
    let mut refused = Vec::new();
    for c in candidates() {
        let Ok(m) = std::fs::metadata(&c) else {
            refused.push(format!("{}: not found", c.display()));
            continue;
        };
        if Some((m.dev(), m.ino())) == own {
            refused.push(format!("{}: is this shim", c.display()));
            continue;
        }
        return Ok(c);
    }
    Err(LoadError(format!(
        "{} (set NETSIFT_REAL_LIBPCAP to its path)",
        refused.join("; ")
    )))
}

fn load() -> Result<Real, LoadError> {
    let path = find()?;
    let c = CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| LoadError(format!("{}: a NUL in the path", path.display())))?;
    let (lib, isolated) = open(&c, &path)?;
    // SAFETY: `lib` is the handle just opened, of a libpcap 1.10
    // (`libpcap.so.0.8`), which exports these functions with these signatures;
    // `malloc` is found in its namespace's libc.
    let f = unsafe { Fns::load(lib)? };
    if isolated {
        flush_at_exit();
    }
    Ok(Real {
        lib: lib as usize,
        f,
        path,
        isolated,
    })
}

/// Opens `c` (`path`) in a new namespace, else with `RTLD_DEEPBIND`.
fn open(c: &CStr, path: &Path) -> Result<(*mut c_void, bool), LoadError> {
    // SAFETY: a NUL-terminated path; the handle is kept for the life of the
    // process.
    let lib = unsafe {
        libc::dlmopen(
            libc::LM_ID_NEWLM,
            c.as_ptr(),
            libc::RTLD_NOW | libc::RTLD_LOCAL,
        )
    };
    if !lib.is_null() {
        return Ok((lib, true));
    }
    let first = dlerror();
    // SAFETY: as above.
    let lib = unsafe {
        libc::dlopen(
            c.as_ptr(),
            libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND,
        )
    };
    if lib.is_null() {
        return Err(LoadError(format!(
            "{}: dlmopen: {first}; dlopen: {}",
            path.display(),
            dlerror()
        )));
    }
    Ok((lib, false))
}

// The real library's stdio, flushed when the program exits.
//
// In a namespace of its own the real library has its own libc, so a dump
// file's `FILE` (and `stdout` for `-w -`) belongs to that libc's stdio, which
// the program's `exit()` does not flush: tcpdump never closes its dump file
// and relies on `exit()` to write out the last buffer. An `atexit` handler of
// the program's libc calls the real library's libc's `fflush(NULL)`, before
// the program's own stdio clean-up.

static AT_EXIT: Once = Once::new();

/// Registers the flush, once.
pub(crate) fn flush_at_exit() {
    AT_EXIT.call_once(|| {
        // SAFETY: registers a function of this library, which is not unloaded
        // while the program runs (glibc runs a library's atexit handlers when
        // it is unloaded, should a plugin host dlclose it).
        unsafe { libc::atexit(flush_all) };
    });
}

/// Flushes every stream of the real library's libc.
extern "C" fn flush_all() {
    let _ = std::panic::catch_unwind(|| {
        if let Some(f) = fns() {
            // SAFETY: fflush(NULL) flushes every output stream of that libc.
            unsafe { (f.fflush)(std::ptr::null_mut()) };
        }
    });
}
