/* SPDX-License-Identifier: MIT
 *
 * otf2_defer.c - packing OTF2 records into the reader-to-mapper pipe and
 * replaying them (otf2_defer.h).
 * Import library, OTF2: libotf2, libc.
 */
#include "otf2_defer.h"

#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#    include <immintrin.h>
/* Streaming stores: the ring's lines are not read back into this core's
 * cache before they are written (the mapping thread reads them next), which
 * was most of what packing cost the reading thread.  otf2_pipe fences them
 * before each hand-over. */
static void put_words(uint64_t *dst, const uint64_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        _mm_stream_si64((long long *)(void *)(dst + i), (long long)src[i]);
    }
}
#else
static void put_words(uint64_t *dst, const uint64_t *src, size_t n)
{
    memcpy(dst, src, n * 8);
}
#endif

/* One attribute as a record carries it. */
typedef struct packed_attr {
    uint32_t ref;
    uint8_t type, pad[3];
    uint64_t value;
} packed_attr;

_Static_assert(sizeof(packed_attr) == 16, "attributes are 16 bytes");
_Static_assert(sizeof(otf2_deferred) % 8 == 0, "records stay 8-byte aligned");
_Static_assert(sizeof(OTF2_AttributeValue) == 8, "an attribute value is one word");

static size_t record_bytes(uint32_t nargs, uint32_t nattrs)
{
    return sizeof(otf2_deferred) + (size_t)nargs * 8 + (size_t)nattrs * sizeof(packed_attr);
}

static void pack_attrs(const OTF2_AttributeList *al, uint32_t n, packed_attr *out)
{
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef ref = OTF2_UNDEFINED_ATTRIBUTE;
        OTF2_Type type = OTF2_TYPE_NONE;
        OTF2_AttributeValue v;
        memset(&v, 0, sizeof v);
        (void)OTF2_AttributeList_GetAttributeByIndex(al, i, &ref, &type, &v);
        out[i] = (packed_attr){.ref = ref, .type = type};
        memcpy(&out[i].value, &v, sizeof v);
    }
}

int otf2_defer_put(otf2_pipe *p, const otf2_deferred *head, const OTF2_AttributeList *al,
                   const uint64_t *args)
{
    const uint32_t nargs = head->nargs;
    const uint32_t nattrs = al != NULL ? OTF2_AttributeList_GetNumberOfElements(al) : 0;
    const size_t bytes = record_bytes(nargs, nattrs);
    if (bytes > OTF2_PIPE_BATCH_BYTES) {
        return 1;
    }
    uint8_t *const at = otf2_pipe_put(p, bytes);
    if (at == NULL) {
        return -1;
    }
    otf2_deferred *const r = (otf2_deferred *)(void *)at;
    /* the header goes through memcpy: written as a struct and read as
     * words through a cast, it broke strict aliasing, and the LTO build
     * streamed words it had never filled (a crash replaying them) */
    otf2_deferred h = *head;
    h.nattrs = nattrs;
    uint64_t words[sizeof h / 8];
    memcpy(words, &h, sizeof h);
    put_words((uint64_t *)(void *)r, words, sizeof words / 8);
    if (nargs > 0) {
        put_words(r->a, args, nargs);
    }
    if (nattrs > 0) {
        pack_attrs(al, nattrs, (packed_attr *)(void *)(r->a + nargs));
    }
    return 0;
}

/* The replayer's list holding exactly the record's attributes. */
static OTF2_AttributeList *unpack_attrs(otf2_replayer *rp, const otf2_deferred *r)
{
    const packed_attr *const pa = (const packed_attr *)(const void *)(r->a + r->nargs);
    if (OTF2_AttributeList_GetNumberOfElements(rp->al) > 0) {
        (void)OTF2_AttributeList_RemoveAllAttributes(rp->al);
    }
    for (uint32_t i = 0; i < r->nattrs; i++) {
        OTF2_AttributeValue v;
        memcpy(&v, &pa[i].value, sizeof v);
        (void)OTF2_AttributeList_AddAttribute(rp->al, pa[i].ref, pa[i].type, v);
    }
    return rp->al;
}

int otf2_defer_replay(void *replayer, const uint8_t *batch, size_t len)
{
    otf2_replayer *const rp = replayer;
    size_t at = 0;
    while (at < len) {
        const otf2_deferred *const r = (const otf2_deferred *)(const void *)(batch + at);
        OTF2_AttributeList *const al = unpack_attrs(rp, r);
        if (r->replay(rp->ud, r, al) != OTF2_CALLBACK_SUCCESS) {
            return -1;
        }
        at += record_bytes(r->nargs, r->nattrs);
    }
    return 0;
}
