//! The pass-through functions: one trampoline per symbol that jumps to the
//! real library's function with every register as the caller left it, so the
//! shim needs no signature for them (`symbols.txt` lists them as `pass`;
//! `build.rs` turns the list into one `pass_through!` call).
//!
//! Each trampoline loads its slot (the real function's address, 0 until
//! resolved) and jumps there. An empty slot sends it to [`lazy`], which saves
//! every argument register, resolves all slots once ([`resolve_all`], which
//! loads the real library), restores the registers and jumps. If the real
//! library cannot be loaded the slot stays empty and the call returns 0 (a
//! NULL pointer, or 0 from a function returning an integer): the intercepted
//! functions say why in their error buffers.
//!
//! The trampolines are naked functions rather than `global_asm!`: rustc
//! exports from a cdylib only the symbols it knows, through a version script
//! ending in `local: *`, so a symbol defined in `global_asm!` stays hidden.

use std::sync::atomic::{AtomicUsize, Ordering};

/// One pass-through symbol: its name and its slot.
pub(crate) struct Slot {
    pub(crate) name: &'static std::ffi::CStr,
    pub(crate) addr: &'static AtomicUsize,
}

macro_rules! pass_through {
    ($($name:ident),* $(,)?) => {
        /// The slots of every pass-through symbol, in `symbols.txt`'s order.
        pub(crate) static SLOTS: &[Slot] = &[
            $(Slot { name: slot::$name::NAME, addr: &slot::$name::ADDR },)*
        ];

        #[allow(non_snake_case, non_upper_case_globals)]
        mod slot {
            $(pub(crate) mod $name {
                use std::sync::atomic::AtomicUsize;
                pub(crate) static ADDR: AtomicUsize = AtomicUsize::new(0);
                pub(crate) const NAME: &std::ffi::CStr = {
                    match std::ffi::CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes()) {
                        Ok(c) => c,
                        Err(_) => panic!("a symbol name"),
                    }
                };
            })*
        }

        $(
            /// Passed through to the real libpcap's function of this name.
            #[no_mangle]
            #[unsafe(naked)]
            extern "C" fn $name() {
                jump!(slot::$name::ADDR)
            }
        )*
    };
}

#[cfg(target_arch = "x86_64")]
macro_rules! jump {
    ($slot:path) => {
        std::arch::naked_asm!(
            "mov r11, qword ptr [rip + {slot}]",
            "test r11, r11",
            "jz 2f",
            "jmp r11",
            "2:",
            "lea r11, [rip + {slot}]",
            "jmp {lazy}",
            slot = sym $slot,
            lazy = sym lazy,
        )
    };
}

#[cfg(target_arch = "aarch64")]
macro_rules! jump {
    ($slot:path) => {
        std::arch::naked_asm!(
            "adrp x17, {slot}",
            "add x17, x17, :lo12:{slot}",
            "ldr x16, [x17]",
            "cbz x16, 2f",
            "br x16",
            "2:",
            "b {lazy}",
            slot = sym $slot,
            lazy = sym lazy,
        )
    };
}

/// Entered from a trampoline whose slot is empty, the slot's address in r11:
/// every register a call may pass arguments in is saved (rdi, rsi, rdx, rcx,
/// r8, r9, rax for a variadic call's vector count, xmm0-7), the slots are
/// resolved, and the call goes on to the real function with the registers
/// restored; with no real function it returns 0.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
unsafe extern "C" fn lazy() {
    std::arch::naked_asm!(
        // On entry rsp is 8 mod 16 (the caller's call pushed the return
        // address); rbp and eight pushes make it 0 mod 16 again, and 128 bytes
        // of vector registers keep it so for the call.
        "push rbp",
        "mov rbp, rsp",
        "push rdi",
        "push rsi",
        "push rdx",
        "push rcx",
        "push r8",
        "push r9",
        "push rax",
        "push r11",
        "sub rsp, 128",
        "movdqu [rsp + 0], xmm0",
        "movdqu [rsp + 16], xmm1",
        "movdqu [rsp + 32], xmm2",
        "movdqu [rsp + 48], xmm3",
        "movdqu [rsp + 64], xmm4",
        "movdqu [rsp + 80], xmm5",
        "movdqu [rsp + 96], xmm6",
        "movdqu [rsp + 112], xmm7",
        "call {resolve}",
        "movdqu xmm0, [rsp + 0]",
        "movdqu xmm1, [rsp + 16]",
        "movdqu xmm2, [rsp + 32]",
        "movdqu xmm3, [rsp + 48]",
        "movdqu xmm4, [rsp + 64]",
        "movdqu xmm5, [rsp + 80]",
        "movdqu xmm6, [rsp + 96]",
        "movdqu xmm7, [rsp + 112]",
        "add rsp, 128",
        "pop r11",
        "pop rax",
        "pop r9",
        "pop r8",
        "pop rcx",
        "pop rdx",
        "pop rsi",
        "pop rdi",
        "pop rbp",
        "mov r11, qword ptr [r11]",
        "test r11, r11",
        "jz 3f",
        "jmp r11",
        "3:",
        "xor eax, eax",
        "xor edx, edx",
        "ret",
        resolve = sym resolve_all,
    )
}

/// The aarch64 form of the x86-64 [`lazy`]: the slot's address in x17,
/// arguments in x0-x7 (x8 for an indirect result) and q0-q7.
#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
unsafe extern "C" fn lazy() {
    std::arch::naked_asm!(
        "stp x29, x30, [sp, #-224]!",
        "mov x29, sp",
        "stp x0, x1, [sp, #16]",
        "stp x2, x3, [sp, #32]",
        "stp x4, x5, [sp, #48]",
        "stp x6, x7, [sp, #64]",
        "stp x8, x17, [sp, #80]",
        "stp q0, q1, [sp, #96]",
        "stp q2, q3, [sp, #128]",
        "stp q4, q5, [sp, #160]",
        "stp q6, q7, [sp, #192]",
        "bl {resolve}",
        "ldp q6, q7, [sp, #192]",
        "ldp q4, q5, [sp, #160]",
        "ldp q2, q3, [sp, #128]",
        "ldp q0, q1, [sp, #96]",
        "ldp x8, x17, [sp, #80]",
        "ldp x6, x7, [sp, #64]",
        "ldp x4, x5, [sp, #48]",
        "ldp x2, x3, [sp, #32]",
        "ldp x0, x1, [sp, #16]",
        "ldp x29, x30, [sp], #224",
        "ldr x16, [x17]",
        "cbz x16, 3f",
        "br x16",
        "3:",
        "mov x0, #0",
        "ret",
        resolve = sym resolve_all,
    )
}

/// Fills every slot from the real library (loading it on the first call).
/// Never unwinds: it is called from assembly.
extern "C" fn resolve_all() {
    let _ = std::panic::catch_unwind(|| {
        let Ok(real) = crate::real::real() else {
            return;
        };
        for s in SLOTS {
            if s.addr.load(Ordering::Acquire) == 0 {
                s.addr
                    .store(real.symbol(s.name) as usize, Ordering::Release);
            }
        }
    });
}

include!(concat!(env!("OUT_DIR"), "/trampolines.rs"));
