// An AF_XDP UMEM in a sealed memfd, which an unprivileged client maps
// read-only while the kernel copies packets into it (docs/ffpf.md, "Copy modes").
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/if_xdp.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <linux/bpf.h>
#define R(x) printf("%-60s -> %s\n", #x, (x) < 0 ? strerror(errno) : "ok")
#define UMEM (64 * 2048)
static long bpf(int cmd, union bpf_attr *a) { return syscall(SYS_bpf, cmd, a, sizeof *a); }
int main(void) {
    setvbuf(stdout, 0, _IONBF, 0);
    int mfd = memfd_create("umem", MFD_ALLOW_SEALING);
    ftruncate(mfd, UMEM);
    unsigned char *umem = mmap(0, UMEM, PROT_READ|PROT_WRITE, MAP_SHARED, mfd, 0);
    int xsk = socket(AF_XDP, SOCK_RAW, 0);
    if (xsk < 0) { perror("AF_XDP"); return 1; }
    struct xdp_umem_reg mr = { .addr = (unsigned long)umem, .len = UMEM, .chunk_size = 2048, .headroom = 0 };
    R(setsockopt(xsk, SOL_XDP, XDP_UMEM_REG, &mr, sizeof mr));
    // Seal after registering: the kernel's pin (and the daemon's mapping) came first.
    R(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_FUTURE_WRITE|F_SEAL_SEAL));
    int n = 64;
    R(setsockopt(xsk, SOL_XDP, XDP_UMEM_FILL_RING, &n, sizeof n));
    R(setsockopt(xsk, SOL_XDP, XDP_UMEM_COMPLETION_RING, &n, sizeof n));
    R(setsockopt(xsk, SOL_XDP, XDP_RX_RING, &n, sizeof n));
    struct xdp_mmap_offsets off; socklen_t ol = sizeof off;
    R(getsockopt(xsk, SOL_XDP, XDP_MMAP_OFFSETS, &off, &ol));
    char *fill = mmap(0, off.fr.desc + n * 8, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_POPULATE, xsk, XDP_UMEM_PGOFF_FILL_RING);
    char *rx = mmap(0, off.rx.desc + n * sizeof(struct xdp_desc), PROT_READ|PROT_WRITE, MAP_SHARED|MAP_POPULATE, xsk, XDP_PGOFF_RX_RING);
    __u32 *fprod = (__u32*)(fill + off.fr.producer); __u64 *fdesc = (__u64*)(fill + off.fr.desc);
    for (int i = 0; i < n; i++) fdesc[i] = (__u64)i * 2048;
    __atomic_store_n(fprod, n, __ATOMIC_RELEASE);
    int ifa = if_nametoindex("zca"), ifb = if_nametoindex("zcb");
    struct sockaddr_xdp sx = { .sxdp_family = AF_XDP, .sxdp_ifindex = ifa, .sxdp_queue_id = 0, .sxdp_flags = XDP_COPY };
    R(bind(xsk, (struct sockaddr*)&sx, sizeof sx));
    union bpf_attr a; memset(&a, 0, sizeof a);
    a.map_type = BPF_MAP_TYPE_XSKMAP; a.key_size = 4; a.value_size = 4; a.max_entries = 1;
    int map = bpf(BPF_MAP_CREATE, &a); printf("xskmap %d\n", map);
    __u32 k = 0, val = xsk;
    memset(&a, 0, sizeof a); a.map_fd = map; a.key = (unsigned long)&k; a.value = (unsigned long)&val;
    R(bpf(BPF_MAP_UPDATE_ELEM, &a));
    struct bpf_insn prog[] = {
        { BPF_LDX|BPF_W|BPF_MEM, 2, 1, 16, 0 },              // r2 = ctx->rx_queue_index
        { BPF_LD|BPF_DW|BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map }, { 0, 0, 0, 0, 0 },
        { BPF_ALU64|BPF_MOV|BPF_K, 3, 0, 0, XDP_PASS },       // default action
        { BPF_JMP|BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map },
        { BPF_JMP|BPF_EXIT, 0, 0, 0, 0 },
    };
    char log[4096] = "";
    memset(&a, 0, sizeof a); a.prog_type = BPF_PROG_TYPE_XDP; a.insns = (unsigned long)prog; a.insn_cnt = 6;
    a.license = (unsigned long)"GPL"; a.log_buf = (unsigned long)log; a.log_size = sizeof log; a.log_level = 1;
    int pfd = bpf(BPF_PROG_LOAD, &a); if (pfd < 0) { printf("load: %s\n%s\n", strerror(errno), log); return 1; }
    memset(&a, 0, sizeof a); a.link_create.prog_fd = pfd; a.link_create.target_ifindex = ifa; a.link_create.attach_type = BPF_XDP;
    int link = bpf(BPF_LINK_CREATE, &a); printf("xdp link %d %s\n", link, link < 0 ? strerror(errno) : "");
    // Send one frame from the peer (inside this test's namespace).
    int ps = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    unsigned char frame[60]; for (int i = 0; i < 60; i++) frame[i] = i * 7; frame[12] = 0x88; frame[13] = 0xb5;
    memset(frame, 0xff, 6);
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = ifb, .sll_halen = 6 };
    R(sendto(ps, frame, 60, 0, (struct sockaddr*)&sll, sizeof sll));
    __u32 *rprod = (__u32*)(rx + off.rx.producer); struct xdp_desc *rdesc = (struct xdp_desc*)(rx + off.rx.desc);
    for (int t = 0; t < 100 && __atomic_load_n(rprod, __ATOMIC_ACQUIRE) == 0; t++) usleep(10000);
    __u32 got = __atomic_load_n(rprod, __ATOMIC_ACQUIRE);
    printf("rx descriptors: %u\n", got);
    if (!got) return 1;
    __u32 which = 0;
    for (__u32 i = 0; i < got; i++) { printf("desc %u: addr %llu len %u\n", i, (unsigned long long)rdesc[i].addr, rdesc[i].len); if (rdesc[i].len == 60) which = i; }
    __u64 addr = rdesc[which].addr; __u32 len = rdesc[which].len;
    printf("desc addr %llu len %u, daemon sees equal bytes: %d\n", (unsigned long long)addr, len, memcmp(umem + addr, frame, 60) == 0);
    pid_t c = fork();
    if (c == 0) {
        if (setgid(65534) || setuid(65534)) { perror("setuid"); _exit(1); }
        printf("client uid %d, holding only the memfd:\n", getuid());
        unsigned char *ro = mmap(0, UMEM, PROT_READ, MAP_SHARED, mfd, 0);
        printf("%-60s -> %s\n", "client: mmap(umem memfd, PROT_READ)", ro == MAP_FAILED ? strerror(errno) : "ok");
        printf("client reads the packet at addr: %s\n", memcmp(ro + addr, frame, 60) == 0 ? "equal bytes" : "DIFFERENT");
        void *rw = mmap(0, UMEM, PROT_READ|PROT_WRITE, MAP_SHARED, mfd, 0);
        printf("%-60s -> %s\n", "client: mmap(umem memfd, PROT_READ|PROT_WRITE)", rw == MAP_FAILED ? strerror(errno) : "ok!");
        R(mprotect(ro, UMEM, PROT_READ|PROT_WRITE));
        R(pwrite(mfd, "x", 1, 0));
        R(ftruncate(mfd, 4096));
        char p[64]; snprintf(p, sizeof p, "/proc/self/fd/%d", mfd);
        int re = open(p, O_RDWR); printf("%-60s -> %s\n", "client: reopen memfd O_RDWR via /proc", re < 0 ? strerror(errno) : "ok (seals still hold)");
        if (re >= 0) { void *w2 = mmap(0, UMEM, PROT_READ|PROT_WRITE, MAP_SHARED, re, 0); printf("%-60s -> %s\n", "client: mmap RW of the reopened file", w2 == MAP_FAILED ? strerror(errno) : "ok!"); }
        _exit(0);
    }
    int st; waitpid(c, &st, 0);
    // The second packet lands only in a frame the daemon returns to the fill ring.
    return 0;
}
