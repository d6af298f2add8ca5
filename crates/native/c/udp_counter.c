/*
 * A native filter for netsift's tests and an example of the ABI
 * (include/netsift_native.h): passes IPv4 UDP in Ethernet frames, and keeps
 * in MBuf, as little-endian-on-x86 uint64_t slots: [0] packets seen, [1]
 * wire bytes of the packets passed, [2] a mark netsift_init writes.
 *
 *   cc -O2 -shared -fPIC -I crates/native/include -o udp_counter.so udp_counter.c
 */
#include <string.h>
#include "netsift_native.h"

const uint32_t netsift_abi = NETSIFT_NATIVE_ABI;

static void add(uint8_t *mbuf, uint32_t mbuf_len, uint32_t slot, uint64_t v)
{
    uint64_t x;
    if (mbuf_len < 8 * (slot + 1))
        return;
    memcpy(&x, mbuf + 8 * slot, 8);
    x += v;
    memcpy(mbuf + 8 * slot, &x, 8);
}

int32_t netsift_init(uint8_t *mbuf, uint32_t mbuf_len)
{
    add(mbuf, mbuf_len, 2, 0x6e6174697665ULL); /* "native" */
    return 0;
}

uint32_t netsift_filter(const uint8_t *pkt, uint32_t caplen, uint32_t wirelen,
                        uint8_t *mbuf, uint32_t mbuf_len)
{
    add(mbuf, mbuf_len, 0, 1);
    if (caplen < 24 || pkt[12] != 0x08 || pkt[13] != 0x00 || pkt[23] != 17)
        return 0;
    add(mbuf, mbuf_len, 1, wirelen);
    return 1;
}
