/*
 * A libpcap program the shim's API test builds: opens argv[1], sets a filter
 * (argv[3] == "hand": a BPF program built by hand that accepts IPv4 UDP;
 * otherwise argv[3] is an expression for pcap_compile), reads argv[2]
 * packets with pcap_next_ex and prints each one's lengths and last byte,
 * then the statistics and a non-blocking dispatch's count.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void count(u_char *user, const struct pcap_pkthdr *h, const u_char *d)
{
	(void)h;
	(void)d;
	(*(int *)user)++;
}

int main(int argc, char **argv)
{
	char eb[PCAP_ERRBUF_SIZE];
	struct bpf_insn insns[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0800, 0, 3),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 17, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 262144),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct bpf_program fp = { 6, insns };
	struct pcap_stat st;
	int want, n = 0, seen = 0;
	pcap_t *p;

	if (argc != 4)
		return 2;
	want = atoi(argv[2]);
	p = pcap_create(argv[1], eb);
	if (p == NULL) {
		fprintf(stderr, "create: %s\n", eb);
		return 2;
	}
	pcap_set_immediate_mode(p, 1);
	pcap_set_timeout(p, 100);
	if (pcap_activate(p) < 0) {
		fprintf(stderr, "activate: %s\n", pcap_geterr(p));
		return 2;
	}
	if (strcmp(argv[3], "hand") != 0) {
		if (pcap_compile(p, &fp, argv[3], 1, PCAP_NETMASK_UNKNOWN) < 0) {
			fprintf(stderr, "compile: %s\n", pcap_geterr(p));
			return 2;
		}
	}
	if (pcap_setfilter(p, &fp) < 0) {
		fprintf(stderr, "setfilter: %s\n", pcap_geterr(p));
		return 2;
	}
	printf("ready %s fd %d link %s\n", argv[1], pcap_get_selectable_fd(p) >= 0,
	    pcap_datalink_val_to_name(pcap_datalink(p)));
	fflush(stdout);
	while (n < want) {
		struct pcap_pkthdr *h;
		const u_char *d;
		int r = pcap_next_ex(p, &h, &d);
		if (r < 0) {
			fprintf(stderr, "next_ex %d: %s\n", r, pcap_geterr(p));
			return 2;
		}
		if (r == 1) {
			printf("%u %u %u\n", h->caplen, h->len, d[h->caplen - 1]);
			n++;
		}
	}
	if (pcap_stats(p, &st) < 0) {
		fprintf(stderr, "stats: %s\n", pcap_geterr(p));
		return 2;
	}
	printf("received %d\n", st.ps_recv >= (u_int)want);
	pcap_setnonblock(p, 1, eb);
	printf("dispatch %d\n", pcap_dispatch(p, -1, count, (u_char *)&seen) >= 0);
	pcap_close(p);
	return 0;
}
