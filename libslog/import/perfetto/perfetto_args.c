/* SPDX-License-Identifier: MIT
 *
 * perfetto_args.c - DebugAnnotation -> slog args.  A scalar becomes an arg
 * of its type (bool, uint, int, double, string; a pointer becomes the
 * string "0x..."; legacy_json_value a JSON arg); names and string values
 * may be interned on the sequence.  Nested values (dict_entries,
 * array_values, the older NestedValue) become one JSON arg.  Keys and
 * strings live in the per-packet scratch arena until the packet is done
 * (pf_args_copy keeps them longer, for slices still open).
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

#define DA_NAME_IID 1
#define DA_BOOL 2
#define DA_UINT 3
#define DA_INT 4
#define DA_DOUBLE 5
#define DA_STRING 6
#define DA_POINTER 7
#define DA_NESTED 8
#define DA_LEGACY_JSON 9
#define DA_NAME 10
#define DA_DICT 11
#define DA_ARRAY 12
#define DA_STRING_IID 17
#define NV_TYPE 1
#define NV_DICT_KEYS 2
#define NV_DICT_VALUES 3
#define NV_ARRAY_VALUES 4
#define NV_INT 5
#define NV_DOUBLE 6
#define NV_BOOL 7
#define NV_STRING 8

typedef struct jbuf {
    char *p;
    size_t n, cap;
    bool oom;
} jbuf;

static void jb_raw(jbuf *b, const char *s, size_t n)
{
    if (b->oom || n == 0) {
        return;
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 128;
        while (cap < b->n + n + 1) {
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    if (b->p == NULL) {
        return;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void jb_str(jbuf *b, const uint8_t *s, size_t n)
{
    jb_raw(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        char esc[8];
        if (s[i] == '"' || s[i] == '\\') {
            esc[0] = '\\';
            esc[1] = (char)s[i];
            jb_raw(b, esc, 2);
        } else if (s[i] < 0x20) {
            (void)snprintf(esc, sizeof esc, "\\u%04x", s[i]);
            jb_raw(b, esc, 6);
        } else {
            jb_raw(b, (const char *)&s[i], 1);
        }
    }
    jb_raw(b, "\"", 1);
}

static void jb_scalar(jbuf *b, const pb_field *e, uint32_t num_bool, uint32_t num_double,
                      bool is_signed)
{
    char tmp[40];
    if (e->num == num_bool) {
        jb_raw(b, e->value ? "true" : "false", e->value ? 4 : 5);
        return;
    }
    if (e->num == num_double) {
        const double d = pb_double(e->value);
        (void)snprintf(tmp, sizeof tmp, "%.17g", d);
        jb_raw(b, d == d && d - d == 0 ? tmp : "null", d == d && d - d == 0 ? strlen(tmp) : 4);
        return;
    }
    if (is_signed) {
        (void)snprintf(tmp, sizeof tmp, "%" PRId64, (int64_t)e->value);
    } else {
        (void)snprintf(tmp, sizeof tmp, "%" PRIu64, e->value);
    }
    jb_raw(b, tmp, strlen(tmp));
}

/* ------------------------------------------------------------ NestedValue */

static int nested_json(pb_reader *r, const pb_field *f, jbuf *b);

/* The next field numbered num in r: PB_OK or PB_END/error. */
static int next_numbered(pb_reader *r, uint32_t num, pb_field *f)
{
    int rc;
    while ((rc = pb_next(r, f)) == PB_OK && f->num != num) {
    }
    return rc;
}

/* A NestedValue dict (dict_keys[i] : dict_values[i]) or array, as JSON. */
static int nested_container(const pb_reader *sub, bool dict, jbuf *b)
{
    pb_reader keys = *sub, vals = *sub;
    pb_field k, v;
    jb_raw(b, dict ? "{" : "[", 1);
    for (bool first = true;; first = false) {
        if (dict && next_numbered(&keys, NV_DICT_KEYS, &k) != PB_OK) {
            break;
        }
        if (next_numbered(&vals, dict ? NV_DICT_VALUES : NV_ARRAY_VALUES, &v) != PB_OK) {
            break;
        }
        jb_raw(b, ",", first ? 0 : 1);
        if (dict) {
            jb_str(b, k.data, k.wire == PB_WIRE_LEN ? k.len : 0);
            jb_raw(b, ":", 1);
        }
        if (nested_json(&vals, &v, b) != PF_OK) {
            return PF_DAMAGED;
        }
    }
    jb_raw(b, dict ? "}" : "]", 1);
    return PF_OK;
}

static int nested_json(pb_reader *r, const pb_field *f, jbuf *b)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    const pb_reader start = sub;
    uint64_t type = 0;
    pb_field leaf = {0};
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == NV_TYPE && e.wire == PB_WIRE_VARINT) {
            type = e.value;
        } else if (e.num >= NV_INT && e.num <= NV_STRING) {
            leaf = e;
        }
    }
    if (rc != PB_END) {
        return PF_DAMAGED;
    }
    pb_reader again = start;
    if (type == 1 || type == 2) {
        return nested_container(&again, type == 1, b);
    }
    if (leaf.num == NV_STRING && leaf.wire == PB_WIRE_LEN) {
        jb_str(b, leaf.data, leaf.len);
    } else if (leaf.num != 0 && leaf.wire != PB_WIRE_LEN) {
        jb_scalar(b, &leaf, NV_BOOL, NV_DOUBLE, true);
    } else {
        jb_raw(b, "null", 4);
    }
    return PF_OK;
}

/* -------------------------------------------------------- DebugAnnotation */

typedef struct ann {
    const uint8_t *name;
    size_t name_len;
    uint64_t name_iid;
    bool has_name_iid;
    pb_field value; /* num 0: none */
    bool dict, array;
} ann;

static int ann_read(pb_reader *r, const pb_field *f, ann *a, pb_reader *body)
{
    pb_field e;
    if (pb_sub(r, f, body) != PB_OK) {
        return PF_DAMAGED;
    }
    pb_reader sub = *body;
    memset(a, 0, sizeof *a);
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == DA_NAME && e.wire == PB_WIRE_LEN) {
            a->name = e.data;
            a->name_len = e.len;
        } else if (e.num == DA_NAME_IID && e.wire == PB_WIRE_VARINT) {
            a->name_iid = e.value;
            a->has_name_iid = true;
        } else if (e.num == DA_DICT || e.num == DA_ARRAY) {
            *(e.num == DA_DICT ? &a->dict : &a->array) = true;
        } else if ((e.num >= DA_BOOL && e.num <= DA_LEGACY_JSON) || e.num == DA_STRING_IID) {
            a->value = e;
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

static const char *ann_name(const pf_seq *s, const ann *a, size_t *len)
{
    if (a->name != NULL) {
        *len = a->name_len;
        return (const char *)a->name;
    }
    const char *n = a->has_name_iid ? pf_intern_lookup(s, &s->ann_names, a->name_iid) : NULL;
    *len = n ? strlen(n) : 0;
    return n;
}

static int ann_json(const pf_seq *s, pb_reader *r, const pb_field *f, jbuf *b);

static int ann_container(const pf_seq *s, pb_reader *body, const ann *a, jbuf *b)
{
    pb_field e;
    bool first = true;
    jb_raw(b, a->dict ? "{" : "[", 1);
    while (pb_next(body, &e) == PB_OK) {
        if (e.num != (a->dict ? DA_DICT : DA_ARRAY)) {
            continue;
        }
        jb_raw(b, ",", first ? 0 : 1);
        first = false;
        if (a->dict) {
            ann entry;
            pb_reader eb;
            size_t n = 0;
            if (ann_read(body, &e, &entry, &eb) != PF_OK) {
                return PF_DAMAGED;
            }
            const char *name = ann_name(s, &entry, &n);
            jb_str(b, (const uint8_t *)(name ? name : ""), n);
            jb_raw(b, ":", 1);
        }
        if (ann_json(s, body, &e, b) != PF_OK) {
            return PF_DAMAGED;
        }
    }
    jb_raw(b, a->dict ? "}" : "]", 1);
    return PF_OK;
}

static void ann_scalar_json(const pf_seq *s, const pb_field *v, jbuf *b)
{
    char tmp[24];
    if (v->num == DA_STRING && v->wire == PB_WIRE_LEN) {
        jb_str(b, v->data, v->len);
    } else if (v->num == DA_LEGACY_JSON && v->wire == PB_WIRE_LEN && v->len > 0) {
        jb_raw(b, (const char *)v->data, v->len);
    } else if (v->num == DA_STRING_IID) {
        const char *str = pf_intern_lookup(s, &s->ann_strings, v->value);
        jb_str(b, (const uint8_t *)(str ? str : ""), str ? strlen(str) : 0);
    } else if (v->num == DA_POINTER) {
        (void)snprintf(tmp, sizeof tmp, "\"0x%" PRIx64 "\"", v->value);
        jb_raw(b, tmp, strlen(tmp));
    } else if (v->num != 0 && v->wire != PB_WIRE_LEN) {
        jb_scalar(b, v, DA_BOOL, DA_DOUBLE, v->num == DA_INT);
    } else {
        jb_raw(b, "null", 4);
    }
}

static int ann_json(const pf_seq *s, pb_reader *r, const pb_field *f, jbuf *b)
{
    ann a;
    pb_reader body;
    if (ann_read(r, f, &a, &body) != PF_OK) {
        return PF_DAMAGED;
    }
    if (a.dict || a.array) {
        return ann_container(s, &body, &a, b);
    }
    if (a.value.num == DA_NESTED) {
        return nested_json(&body, &a.value, b);
    }
    ann_scalar_json(s, &a.value, b);
    return PF_OK;
}

/* ------------------------------------------------------------- the args */

void pf_args_reset(pf_importer *pf)
{
    pf->nargs = 0;
}

static slog_arg *arg_slot(pf_importer *pf)
{
    if (pf->nargs == pf->capargs) {
        const uint32_t cap = pf->capargs ? pf->capargs * 2 : 16;
        slog_arg *a = realloc(pf->args, cap * sizeof *a);
        if (a == NULL) {
            return NULL;
        }
        pf->args = a;
        pf->capargs = cap;
    }
    slog_arg *a = &pf->args[pf->nargs++];
    memset(a, 0, sizeof *a);
    return a;
}

/* A scalar value straight into *arg (false when it needs JSON). */
static bool scalar_arg(pf_importer *pf, const pf_seq *s, const pb_field *v, slog_arg *arg)
{
    switch (v->num) {
    case DA_BOOL:
        arg->type = SLOG_ARG_BOOL;
        arg->v.b = v->value != 0;
        return v->wire == PB_WIRE_VARINT;
    case DA_UINT:
        arg->type = SLOG_ARG_UINT;
        arg->v.u = v->value;
        return v->wire == PB_WIRE_VARINT;
    case DA_INT:
        arg->type = SLOG_ARG_INT;
        arg->v.i = (int64_t)v->value;
        return v->wire == PB_WIRE_VARINT;
    case DA_DOUBLE:
        arg->type = SLOG_ARG_DOUBLE;
        arg->v.d = pb_double(v->value);
        return v->wire == PB_WIRE_I64;
    case DA_STRING:
        arg->type = SLOG_ARG_STRING;
        arg->v.s = v->wire == PB_WIRE_LEN ? pf_arena_strdup(&pf->scratch, v->data, v->len) : NULL;
        return arg->v.s != NULL;
    case DA_STRING_IID: {
        const char *str = pf_intern_lookup(s, &s->ann_strings, v->value);
        arg->type = SLOG_ARG_STRING;
        arg->v.s = str ? str : "";
        return true;
    }
    default:
        return false;
    }
}

/* A nested value (or a pointer) as one JSON (or string) arg. */
static int json_arg(pf_importer *pf, const pf_seq *s, pb_reader *r, const pb_field *f,
                    slog_arg *arg, bool pointer)
{
    jbuf b = {0};
    const int rc = ann_json(s, r, f, &b);
    const char *text = b.p != NULL ? b.p : "null";
    size_t n = b.p != NULL ? b.n : 4;
    if (pointer && n >= 2) {
        text++; /* "0x..." without its quotes */
        n -= 2;
    }
    arg->type = pointer ? SLOG_ARG_STRING : SLOG_ARG_JSON;
    arg->v.s = pf_arena_strdup(&pf->scratch, text, n);
    const bool oom = b.oom || arg->v.s == NULL;
    free(b.p);
    if (rc != PF_OK) {
        return PF_DAMAGED;
    }
    return oom ? pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (args)") : PF_OK;
}

int pf_args_add(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f)
{
    ann a;
    pb_reader body;
    if (ann_read(r, f, &a, &body) != PF_OK) {
        return PF_DAMAGED;
    }
    size_t nlen = 0;
    const char *name = ann_name(s, &a, &nlen);
    if (name == NULL || (a.value.num == 0 && !a.dict && !a.array)) {
        pf_count(pf, K_ARGS_BAD, 1);
        return PF_OK;
    }
    slog_arg *arg = arg_slot(pf);
    const char *key = arg ? pf_arena_strdup(&pf->scratch, name, nlen) : NULL;
    if (key == NULL) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (args)");
    }
    arg->key = key;
    if (a.dict || a.array || !scalar_arg(pf, s, &a.value, arg)) {
        const int rc = json_arg(pf, s, r, f, arg, a.value.num == DA_POINTER);
        if (rc != PF_OK) {
            pf->nargs--;
            return rc;
        }
    }
    pf_count(pf, K_ARGS, 1);
    return PF_OK;
}

int pf_args_copy(const slog_arg *args, uint32_t n, slog_arg **out)
{
    *out = NULL;
    if (n == 0) {
        return PF_OK;
    }
    size_t bytes = n * sizeof(slog_arg);
    for (uint32_t i = 0; i < n; i++) {
        bytes += strlen(args[i].key) + 1;
        if (args[i].type == SLOG_ARG_STRING || args[i].type == SLOG_ARG_JSON) {
            bytes += strlen(args[i].v.s) + 1;
        }
    }
    slog_arg *copy = malloc(bytes);
    if (copy == NULL) {
        return PF_FATAL;
    }
    char *text = (char *)(copy + n);
    for (uint32_t i = 0; i < n; i++) {
        copy[i] = args[i];
        const size_t kl = strlen(args[i].key) + 1;
        copy[i].key = memcpy(text, args[i].key, kl);
        text += kl;
        if (args[i].type == SLOG_ARG_STRING || args[i].type == SLOG_ARG_JSON) {
            const size_t vl = strlen(args[i].v.s) + 1;
            copy[i].v.s = memcpy(text, args[i].v.s, vl);
            text += vl;
        }
    }
    *out = copy;
    return PF_OK;
}
