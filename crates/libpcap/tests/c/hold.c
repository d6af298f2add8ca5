/*
 * A libpcap program the shim's pcap_next_ex test builds: opens argv[1] in
 * immediate mode with the filter "udp", then argv[2] times: reads a packet
 * with pcap_next_ex, prints "got CAPLEN SEQ" (SEQ: its last four bytes),
 * waits for a line on stdin (the test sends more packets meanwhile, enough
 * to overwrite the daemon's whole PBuf), and prints "same" if the packet's
 * header and bytes are still what they were, else "changed".
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char eb[PCAP_ERRBUF_SIZE], line[64];
	static u_char copy[262144];
	struct bpf_program fp;
	pcap_t *p;
	int rounds, i;

	if (argc != 3)
		return 2;
	rounds = atoi(argv[2]);
	p = pcap_create(argv[1], eb);
	if (p == NULL) {
		fprintf(stderr, "create: %s\n", eb);
		return 2;
	}
	pcap_set_immediate_mode(p, 1);
	pcap_set_timeout(p, 100);
	if (pcap_activate(p) < 0 ||
	    pcap_compile(p, &fp, "udp", 1, PCAP_NETMASK_UNKNOWN) < 0 ||
	    pcap_setfilter(p, &fp) < 0) {
		fprintf(stderr, "setup: %s\n", pcap_geterr(p));
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < rounds; i++) {
		struct pcap_pkthdr *h, saved;
		const u_char *d;
		unsigned seq;
		int r;

		while ((r = pcap_next_ex(p, &h, &d)) == 0)
			;
		if (r != 1) {
			fprintf(stderr, "next_ex %d: %s\n", r, pcap_geterr(p));
			return 2;
		}
		if (h->caplen < 4 || h->caplen > sizeof(copy))
			return 3;
		saved = *h;
		memcpy(copy, d, h->caplen);
		seq = (unsigned)d[h->caplen - 4] << 24 | d[h->caplen - 3] << 16 |
		      d[h->caplen - 2] << 8 | d[h->caplen - 1];
		printf("got %u %u\n", h->caplen, seq);
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL)
			return 4;
		printf("%s\n", memcmp(&saved, h, sizeof(saved)) == 0 &&
					       memcmp(copy, d, saved.caplen) == 0
				       ? "same"
				       : "changed");
		fflush(stdout);
	}
	pcap_close(p);
	return 0;
}
