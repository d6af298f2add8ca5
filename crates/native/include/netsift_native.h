/*
 * netsift_native.h: the C ABI of netsift's `native` filter class (ABI 1).
 *
 * A `native` element, `(native,"/abs/path/filter.so",MBUF)`, is a shared
 * object that netsiftd loads for root only (FFPF allowed C for root; the
 * class table refuses it to every other user). The daemon refuses an object
 * given by a relative path, not a regular file, not owned by root, or
 * writable by its group or by others, and one without `netsift_filter`.
 *
 * Build one with:  cc -O2 -shared -fPIC -o filter.so filter.c
 *
 * The object runs inside the daemon, as root, on its capture thread: a
 * crash or a hang there is the daemon's. It must not keep the pointers it is
 * given past the call, and should not block.
 */
#ifndef NETSIFT_NATIVE_H
#define NETSIFT_NATIVE_H

#include <stdint.h>

#define NETSIFT_NATIVE_ABI 1

/*
 * Required. Called once per packet that reaches the element, from one thread
 * at a time per element.
 *
 *   pkt, caplen   the captured bytes (caplen of them; the link layer is the
 *                 source's, Ethernet on an Ethernet interface)
 *   wirelen       the packet's length on the wire (>= caplen)
 *   mbuf, mbuf_len  the element's MBuf (its size in the flow text, 0 to
 *                 1 MiB; NULL when 0), kept from packet to packet and
 *                 published to the flow's clients, read-only, after each
 *                 batch. The object may read and write all of it.
 *
 * Returns nonzero to pass the packet on, 0 to drop it.
 */
uint32_t netsift_filter(const uint8_t *pkt, uint32_t caplen, uint32_t wirelen,
                        uint8_t *mbuf, uint32_t mbuf_len);

/*
 * Optional. Called once when the element is built (at `create`, to check
 * it, and again at `instantiate`, for the instance that runs), with the
 * element's zeroed MBuf. Returns 0 to accept; nonzero refuses the element,
 * and the daemon reports the value.
 */
int32_t netsift_init(uint8_t *mbuf, uint32_t mbuf_len);

/*
 * Optional. If defined, must equal NETSIFT_NATIVE_ABI; an object built for
 * another ABI is refused.
 */
extern const uint32_t netsift_abi;

#endif
