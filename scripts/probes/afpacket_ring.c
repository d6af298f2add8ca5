// What a client could do with the daemon's AF_PACKET ring socket (docs/ffpf.md, "Copy modes").
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <linux/filter.h>
#define R(x) printf("%-55s -> %s\n", #x, (x) < 0 ? strerror(errno) : "ok")
int main(void) {
    setvbuf(stdout, 0, _IONBF, 0);
    int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    if (fd < 0) { perror("socket"); return 1; }
    int v = TPACKET_V3; setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v);
    struct tpacket_req3 req = { .tp_block_size = 1<<16, .tp_block_nr = 4, .tp_frame_size = 1<<11, .tp_frame_nr = 128, .tp_retire_blk_tov = 10 };
    if (setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req)) { perror("rx ring"); return 1; }
    struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = if_nametoindex("lo") };
    R(bind(fd, (struct sockaddr*)&sll, sizeof sll));
    void *ro = mmap(0, 4<<16, PROT_READ, MAP_SHARED, fd, 0);
    printf("%-55s -> %s\n", "daemon: mmap(ring, PROT_READ)", ro == MAP_FAILED ? strerror(errno) : "ok");
    if (ro != MAP_FAILED) R(mprotect(ro, 4<<16, PROT_READ|PROT_WRITE));
    char path[64]; snprintf(path, sizeof path, "/proc/%d/fd/%d", getpid(), fd);
    R(open(path, O_RDONLY));
    pid_t c = fork();
    if (c == 0) {
        // An unprivileged client that was handed the descriptor.
        if (setgid(65534) || setuid(65534)) { perror("setuid"); _exit(1); }
        printf("client uid %d, holding the ring socket:\n", getuid());
        R(open(path, O_RDONLY));
        void *rw = mmap(0, 4<<16, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0);
        printf("%-55s -> %s\n", "client: mmap(ring, PROT_READ|PROT_WRITE)", rw == MAP_FAILED ? strerror(errno) : "ok (it can write block_status)");
        struct sock_filter acc[] = {{ BPF_RET|BPF_K, 0, 0, 0xffff }};
        struct sock_fprog prog = { 1, acc };
        R(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog));
        R(setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &v, sizeof v));
        struct packet_mreq mr = { .mr_ifindex = sll.sll_ifindex, .mr_type = PACKET_MR_PROMISC };
        R(setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr));
        struct sockaddr_ll any = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = 0 };
        R(bind(fd, (struct sockaddr*)&any, sizeof any));
        unsigned char frame[60] = {0}; frame[12] = 0x88; frame[13] = 0xb5; // local experimental ethertype
        R(sendto(fd, frame, sizeof frame, 0, (struct sockaddr*)&sll, sizeof sll));
        char buf[2048];
        R(recv(fd, buf, sizeof buf, MSG_DONTWAIT));
        _exit(0);
    }
    int st; waitpid(c, &st, 0);
    return 0;
}
