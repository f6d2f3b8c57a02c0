/* SPDX-License-Identifier: MIT
 *
 * fuzz_otf2_defs.c - libFuzzer target for the OTF2 definitions path that
 * libslog controls (libslog/import/otf2/otf2_defs.c): the definition
 * callbacks are fed synthetic definitions decoded from the input, then
 * otf2_defs_check resolves every reference and the mapping helpers run
 * (rank -> location group through communicators and groups, names of
 * paradigms, roles and collectives, ticks -> ns).  libotf2's own archive
 * reader is not in the loop: this is what an archive's definitions can
 * make libslog do, whatever bytes libotf2 accepted.
 * The callbacks are static, so the file is included here (a fuzz target
 * only; the import library compiles it on its own).
 * Input: records of one op byte (which callback) and its fields; an id is
 * one byte (< 0xf0: a small id 0..15, so references meet) or 0xff and 8 bytes.
 */
#include "otf2_defs.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in;

static uint8_t fz_u8(fz_in *in)
{
    if (in->n == 0) {
        return 0;
    }
    in->n--;
    return *in->p++;
}

static uint64_t fz_u64(fz_in *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v |= (uint64_t)fz_u8(in) << (8 * i);
    }
    return v;
}

static uint64_t fz_id(fz_in *in)
{
    const uint8_t b = fz_u8(in);
    return b < 0xf0 ? b & 15u : b == 0xff ? fz_u64(in) : UINT64_MAX - (b & 15u);
}

static uint32_t fz_id32(fz_in *in)
{
    return (uint32_t)fz_id(in);
}

/* A NUL-terminated string of up to 32 input bytes in buf. */
static const char *fz_str(fz_in *in, char *buf)
{
    const size_t len = fz_u8(in) % 33u;
    size_t i = 0;
    for (; i < len && in->n > 0; i++) {
        buf[i] = (char)fz_u8(in);
        buf[i] = buf[i] != '\0' ? buf[i] : '_';
    }
    buf[i] = '\0';
    return buf;
}

static void fz_group(otf2_defs *d, fz_in *in)
{
    const uint64_t self = fz_id(in);
    const uint32_t name = fz_id32(in);
    const uint8_t type = (uint8_t)(fz_u8(in) % 8u);
    const uint8_t paradigm = fz_u8(in);
    uint64_t members[16];
    const uint32_t n = fz_u8(in) % 17u;
    for (uint32_t i = 0; i < n; i++) {
        members[i] = fz_id(in);
    }
    (void)def_group(d, (uint32_t)self, name, type, paradigm, 0, n, members);
}

static void fz_metric_class(otf2_defs *d, fz_in *in)
{
    const uint32_t self = fz_id32(in);
    OTF2_MetricMemberRef members[8];
    const uint8_t n = (uint8_t)(fz_u8(in) % 9u);
    for (uint8_t i = 0; i < n; i++) {
        members[i] = fz_id32(in);
    }
    (void)def_metric_class(d, self, n, members, 0, 0);
}

/* Fields are read in order into a[] before any call (C leaves the order in
 * which call arguments are evaluated open, so a saved input must not depend
 * on the compiler). */
static void fz_record_a(otf2_defs *d, fz_in *in, uint8_t op, const uint64_t *a)
{
    char buf[33];
    switch (op) {
    case 0: {
        const uint32_t self = fz_id32(in);
        (void)def_string(d, self, fz_str(in, buf));
        break;
    }
    case 1: {
        const uint64_t res = fz_u64(in);
        const uint64_t off = fz_u64(in);
        (void)def_clock(d, res, off, fz_u64(in), 0);
        break;
    }
    case 2:
        (void)def_paradigm(d, (uint8_t)a[0], (uint32_t)a[1], 0);
        break;
    case 3:
        (void)def_stn(d, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2], (uint32_t)a[3]);
        break;
    case 4:
        (void)def_stn_domain(d, (uint32_t)a[0], (uint8_t)a[1]);
        break;
    case 5:
        (void)def_lgroup(d, (uint32_t)a[0], (uint32_t)a[1], (uint8_t)(a[2] % 4u), (uint32_t)a[3],
                         0);
        break;
    case 6:
        (void)def_location(d, a[0], (uint32_t)a[1], (uint8_t)(a[2] % 6u), a[3], (uint32_t)a[4]);
        break;
    default:
        (void)def_region(d, (uint32_t)a[0], (uint32_t)a[1], 0, (uint32_t)a[2],
                         (uint8_t)(a[3] % 40u), (uint8_t)a[4], 0, 0, 0, 0);
        break;
    }
}

static void fz_record_b(otf2_defs *d, fz_in *in, uint8_t op, const uint64_t *a)
{
    switch (op) {
    case 8:
        fz_group(d, in);
        break;
    case 9:
        (void)def_comm(d, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2], (uint32_t)a[3], 0);
        break;
    case 10:
        (void)def_intercomm(d, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2], (uint32_t)a[3],
                            0, 0);
        break;
    case 11:
        (void)def_member(d, (uint32_t)a[0], (uint32_t)a[1], (uint32_t)a[2], 0, (uint8_t)a[3], 0,
                         0, 0, (uint32_t)a[4]);
        break;
    case 12:
        fz_metric_class(d, in);
        break;
    case 13:
        (void)def_metric_instance(d, (uint32_t)a[0], (uint32_t)a[1], a[2], (uint8_t)(a[3] % 5u),
                                  a[4]);
        break;
    case 14:
        (void)def_attribute(d, (uint32_t)a[0], (uint32_t)a[1], 0, (uint8_t)a[2]);
        break;
    case 15:
        (void)def_parameter(d, (uint32_t)a[0], (uint32_t)a[1], (uint8_t)a[2]);
        break;
    case 16:
        (void)def_context(d, (uint32_t)a[0], (uint32_t)a[1], 0, 0);
        break;
    default:
        (void)def_unknown(d);
        break;
    }
}

/* After the check: what the importer asks of the definitions. */
static void fz_lookups(otf2_defs *d, fz_in *in)
{
    char buf[64];
    for (int k = 0; k < 8 && in->n > 0; k++) {
        const uint64_t comm = fz_id(in);
        const uint64_t rank = fz_id(in);
        (void)otf2_defs_rank_group(d, comm, (uint32_t)rank, fz_id(in));
        (void)otf2_paradigm_name(d, fz_u8(in), buf, sizeof buf);
        (void)otf2_role_name(fz_u8(in));
        (void)otf2_collective_name(fz_u8(in));
        (void)otf2_defs_string(d, fz_id32(in));
        if (d->have_clock && d->resolution > 0) {
            (void)otf2_ticks_to_ns(fz_u64(in), d->offset, d->resolution);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    otf2_defs *const d = calloc(1, sizeof *d);
    if (d == NULL) {
        return 0;
    }
    const size_t records = fz_u8(&in);
    for (size_t r = 0; r < records && in.n > 0 && !d->error[0]; r++) {
        const uint8_t op = (uint8_t)(fz_u8(&in) % 18u);
        uint64_t a[5] = {0, 0, 0, 0, 0};
        for (int k = 0; op != 0 && op != 1 && op != 8 && op != 12 && k < 5; k++) {
            a[k] = fz_id(&in);
        }
        if (op < 8) {
            fz_record_a(d, &in, op, a);
        } else {
            fz_record_b(d, &in, op, a);
        }
    }
    if (!d->error[0] && otf2_defs_check(d) == 0) {
        fz_lookups(d, &in);
    }
    otf2_defs_free(d);
    free(d);
    return 0;
}
