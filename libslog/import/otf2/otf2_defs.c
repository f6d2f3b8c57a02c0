/* SPDX-License-Identifier: MIT
 *
 * otf2_defs.c - collect OTF2 global definitions into id-keyed tables and
 * check their references once all are read.  Every table is a dense array
 * plus an open-addressing map from the OTF2 id (ids need not be dense:
 * Score-P location ids are rank << 32 | thread).  Communicator ranks are
 * resolved here: rank -> COMM_GROUP member -> index into the paradigm's
 * COMM_LOCATIONS group -> location -> its location group.
 */
#include "otf2_defs.h"

#include <assert.h>
#include <inttypes.h>
#include <shared_grow.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- id map ------------------------------------------------------------ */

static size_t idmap_slot(uint64_t key, size_t cap)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (size_t)h & (cap - 1);
}

uint32_t otf2_idmap_get(const otf2_idmap *m, uint64_t key)
{
    if (key < m->dense) {
        return (uint32_t)key;
    }
    if (m->cap == 0) {
        return OTF2_NO_INDEX;
    }
    for (size_t i = idmap_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->vals[i] == OTF2_NO_INDEX) {
            return OTF2_NO_INDEX;
        }
        if (m->keys[i] == key) {
            return m->vals[i];
        }
    }
}

static int idmap_grow(otf2_idmap *m)
{
    const size_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    memset(vals, 0xff, cap * sizeof *vals);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] != OTF2_NO_INDEX) {
            size_t j = idmap_slot(m->keys[i], cap);
            while (vals[j] != OTF2_NO_INDEX) {
                j = (j + 1) & (cap - 1);
            }
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int otf2_idmap_put(otf2_idmap *m, uint64_t key, uint32_t val)
{
    if ((m->count + 1) * 2 > m->cap && idmap_grow(m) != 0) {
        return -1;
    }
    size_t i = idmap_slot(key, m->cap);
    while (m->vals[i] != OTF2_NO_INDEX && m->keys[i] != key) {
        i = (i + 1) & (m->cap - 1);
    }
    if (m->vals[i] == OTF2_NO_INDEX) {
        m->count++;
    }
    m->keys[i] = key;
    m->vals[i] = val;
    if (key == m->dense && val == key) {
        m->dense++;
    } else if (key < m->dense && val != key) {
        m->dense = (size_t)key; /* an identity entry was overwritten */
    }
    return 0;
}

void otf2_idmap_free(otf2_idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- tables ------------------------------------------------------------ */

static void defs_error(otf2_defs *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void defs_error(otf2_defs *d, const char *fmt, ...)
{
    if (d->error[0]) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    // NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): false positive
    (void)vsnprintf(d->error, sizeof d->error, fmt, ap);
    va_end(ap);
}

/* Append an entry for `id` to table t; sets `out` to it or NULL (error set). */
#define TABLE_ADD(d, t, idv, what, out)                                                            \
    do {                                                                                           \
        (out) = NULL;                                                                              \
        if (otf2_idmap_get(&(t).map, (idv)) != OTF2_NO_INDEX) {                                    \
            defs_error((d), "%s %" PRIu64 " is defined twice", (what), (uint64_t)(idv));           \
        } else if (shared_grow32(&(t).v, &(t).cap, (t).n + 1, sizeof *(t).v) != 0 ||                  \
                   otf2_idmap_put(&(t).map, (idv), (t).n) != 0) {                                  \
            (d)->oom = true;                                                                       \
            defs_error((d), "out of memory reading %s definitions", (what));                       \
        } else {                                                                                   \
            (out) = &(t).v[(t).n++];                                                               \
        }                                                                                          \
    } while (0)

#define TABLE_GET(t, idv)                                                                          \
    __extension__({                                                                                \
        const uint32_t i_ = otf2_idmap_get(&(t).map, (idv));                                       \
        i_ == OTF2_NO_INDEX ? NULL : &(t).v[i_];                                                   \
    })

#define CB_STATUS(d) ((d)->error[0] ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS)

const char *otf2_defs_string(const otf2_defs *d, OTF2_StringRef ref)
{
    if (ref == OTF2_UNDEFINED_STRING) {
        return "";
    }
    char *const *s = TABLE_GET(d->strings, ref);
    return s ? *s : NULL;
}

otf2_def_loc *otf2_defs_loc(otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->locs, id);
}
otf2_def_region *otf2_defs_region(otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->regions, id);
}
const otf2_def_comm *otf2_defs_comm(const otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->comms, id);
}
const otf2_def_group *otf2_defs_group(const otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->groups, id);
}
otf2_def_member *otf2_defs_member(otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->members, id);
}
const otf2_def_metric *otf2_defs_metric(const otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->metrics, id);
}
const otf2_def_named *otf2_defs_attr(const otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->attrs, id);
}
const otf2_def_named *otf2_defs_param(const otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->params, id);
}
const otf2_def_context *otf2_defs_context(const otf2_defs *d, uint64_t id)
{
    return TABLE_GET(d->contexts, id);
}

/* ---- callbacks ----------------------------------------------------------- */

static OTF2_CallbackCode def_string(void *ud, OTF2_StringRef self, const char *str)
{
    otf2_defs *const d = ud;
    char **slot;
    TABLE_ADD(d, d->strings, self, "STRING", slot);
    if (slot) {
        *slot = strdup(str ? str : "");
        if (!*slot) {
            d->oom = true;
            defs_error(d, "out of memory reading STRING definitions");
        }
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode
def_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
    otf2_defs *const d = ud;
    (void)realtime;
    if (resolution == 0) {
        defs_error(d, "CLOCK_PROPERTIES has a timer resolution of 0 ticks per second");
    }
    d->have_clock = true;
    d->resolution = resolution;
    d->offset = offset;
    d->length = length;
    return CB_STATUS(d);
}

static OTF2_CallbackCode
def_paradigm(void *ud, OTF2_Paradigm p, OTF2_StringRef name, OTF2_ParadigmClass cls)
{
    otf2_defs *const d = ud;
    (void)cls;
    const char *const s = otf2_defs_string(d, name);
    if (s && s[0] && !d->paradigm_names[p]) {
        d->paradigm_names[p] = strdup(s);
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_stn(void *ud,
                                 OTF2_SystemTreeNodeRef self,
                                 OTF2_StringRef name,
                                 OTF2_StringRef cls,
                                 OTF2_SystemTreeNodeRef parent)
{
    otf2_defs *const d = ud;
    otf2_def_stn *n;
    TABLE_ADD(d, d->stns, self, "SYSTEM_TREE_NODE", n);
    if (n) {
        n->id = self;
        n->name = name;
        n->class_name = cls;
        n->parent = parent;
        n->timeline = OTF2_NO_INDEX;
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode
def_stn_domain(void *ud, OTF2_SystemTreeNodeRef node, OTF2_SystemTreeDomain domain)
{
    otf2_defs *const d = ud;
    otf2_def_stn *const n = TABLE_GET(d->stns, node);
    if (!n) {
        defs_error(d, "SYSTEM_TREE_NODE_DOMAIN references undefined SYSTEM_TREE_NODE %u", node);
    } else if (domain < 32) {
        n->domains |= 1u << domain;
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_lgroup(void *ud,
                                    OTF2_LocationGroupRef self,
                                    OTF2_StringRef name,
                                    OTF2_LocationGroupType type,
                                    OTF2_SystemTreeNodeRef parent,
                                    OTF2_LocationGroupRef creator)
{
    otf2_defs *const d = ud;
    otf2_def_lgroup *g;
    (void)creator;
    TABLE_ADD(d, d->lgroups, self, "LOCATION_GROUP", g);
    if (g) {
        g->id = self;
        g->name = name;
        g->type = type;
        g->stn = parent;
        g->timeline = OTF2_NO_INDEX;
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_location(void *ud,
                                      OTF2_LocationRef self,
                                      OTF2_StringRef name,
                                      OTF2_LocationType type,
                                      uint64_t events,
                                      OTF2_LocationGroupRef group)
{
    otf2_defs *const d = ud;
    otf2_def_loc *l;
    TABLE_ADD(d, d->locs, self, "LOCATION", l);
    if (l) {
        l->id = self;
        l->name = name;
        l->type = type;
        l->events = events;
        l->group = group;
        l->group_index = OTF2_NO_INDEX;
        l->timeline = OTF2_NO_INDEX;
        l->last_time = INT64_MIN;
    }
    return CB_STATUS(d);
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode def_region(void *ud,
                                    OTF2_RegionRef self,
                                    OTF2_StringRef name,
                                    OTF2_StringRef canonical,
                                    OTF2_StringRef descr,
                                    OTF2_RegionRole role,
                                    OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags,
                                    OTF2_StringRef file,
                                    uint32_t begin,
                                    uint32_t end)
{
    otf2_defs *const d = ud;
    otf2_def_region *r;
    (void)canonical, (void)flags, (void)file, (void)begin, (void)end;
    TABLE_ADD(d, d->regions, self, "REGION", r);
    if (r) {
        r->id = self;
        r->name = name;
        r->description = descr;
        r->role = role;
        r->paradigm = paradigm;
        r->category = OTF2_NO_INDEX;
    }
    return CB_STATUS(d);
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode def_group(void *ud,
                                   OTF2_GroupRef self,
                                   OTF2_StringRef name,
                                   OTF2_GroupType type,
                                   OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags,
                                   uint32_t n,
                                   const uint64_t *members)
{
    otf2_defs *const d = ud;
    otf2_def_group *g;
    (void)flags;
    TABLE_ADD(d, d->groups, self, "GROUP", g);
    if (g) {
        g->id = self;
        g->name = name;
        g->type = type;
        g->paradigm = paradigm;
        g->nmembers = n;
        if (n > 0) {
            g->members = malloc((size_t)n * sizeof *g->members);
            if (!g->members) {
                d->oom = true;
                defs_error(d, "out of memory reading GROUP definitions");
                g->nmembers = 0;
            } else {
                memcpy(g->members, members, (size_t)n * sizeof *g->members);
            }
        }
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_comm(void *ud,
                                  OTF2_CommRef self,
                                  OTF2_StringRef name,
                                  OTF2_GroupRef group,
                                  OTF2_CommRef parent,
                                  OTF2_CommFlag flags)
{
    otf2_defs *const d = ud;
    otf2_def_comm *c;
    (void)parent, (void)flags;
    TABLE_ADD(d, d->comms, self, "COMM", c);
    if (c) {
        c->id = self;
        c->name = name;
        c->group = group;
        c->group_b = UINT64_MAX;
    }
    return CB_STATUS(d);
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode def_intercomm(void *ud,
                                       OTF2_CommRef self,
                                       OTF2_StringRef name,
                                       OTF2_GroupRef a,
                                       OTF2_GroupRef b,
                                       OTF2_CommRef common,
                                       OTF2_CommFlag flags)
{
    otf2_defs *const d = ud;
    otf2_def_comm *c;
    (void)common, (void)flags;
    TABLE_ADD(d, d->comms, self, "INTER_COMM", c);
    if (c) {
        c->id = self;
        c->name = name;
        c->group = a;
        c->group_b = b;
    }
    return CB_STATUS(d);
}

// NOLINTNEXTLINE(readability-function-size): OTF2 fixes the parameters
static OTF2_CallbackCode def_member(void *ud,
                                    OTF2_MetricMemberRef self,
                                    OTF2_StringRef name,
                                    OTF2_StringRef descr,
                                    OTF2_MetricType type,
                                    OTF2_MetricMode mode,
                                    OTF2_Type value_type,
                                    OTF2_Base base,
                                    int64_t exponent,
                                    OTF2_StringRef unit)
{
    otf2_defs *const d = ud;
    otf2_def_member *m;
    (void)type, (void)value_type, (void)base, (void)exponent;
    TABLE_ADD(d, d->members, self, "METRIC_MEMBER", m);
    if (m) {
        m->id = self;
        m->name = name;
        m->unit = unit;
        m->description = descr;
        m->mode = mode;
        m->category = OTF2_NO_INDEX;
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_metric_class(void *ud,
                                          OTF2_MetricRef self,
                                          uint8_t n,
                                          const OTF2_MetricMemberRef *members,
                                          OTF2_MetricOccurrence occurrence,
                                          OTF2_RecorderKind kind)
{
    otf2_defs *const d = ud;
    otf2_def_metric *m;
    (void)occurrence, (void)kind;
    TABLE_ADD(d, d->metrics, self, "METRIC_CLASS", m);
    if (m) {
        m->id = self;
        m->instance = false;
        m->nmembers = n;
        m->members = malloc((size_t)(n ? n : 1) * sizeof *m->members);
        if (!m->members) {
            d->oom = true;
            defs_error(d, "out of memory reading METRIC_CLASS definitions");
            m->nmembers = 0;
        } else {
            for (uint8_t i = 0; i < n; i++) {
                m->members[i] = members[i];
            }
        }
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_metric_instance(void *ud,
                                             OTF2_MetricRef self,
                                             OTF2_MetricRef cls,
                                             OTF2_LocationRef recorder,
                                             OTF2_MetricScope scope_kind,
                                             uint64_t scope)
{
    otf2_defs *const d = ud;
    otf2_def_metric *m;
    TABLE_ADD(d, d->metrics, self, "METRIC_INSTANCE", m);
    if (m) {
        m->id = self;
        m->instance = true;
        m->class_id = cls;
        m->recorder = recorder;
        m->scope_kind = scope_kind;
        m->scope = scope;
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_attribute(
    void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef descr, OTF2_Type type)
{
    otf2_defs *const d = ud;
    otf2_def_named *a;
    (void)descr;
    TABLE_ADD(d, d->attrs, self, "ATTRIBUTE", a);
    if (a) {
        a->id = self;
        a->name = name;
        a->type = type;
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode
def_parameter(void *ud, OTF2_ParameterRef self, OTF2_StringRef name, OTF2_ParameterType type)
{
    otf2_defs *const d = ud;
    otf2_def_named *p;
    TABLE_ADD(d, d->params, self, "PARAMETER", p);
    if (p) {
        p->id = self;
        p->name = name;
        p->type = type;
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_context(void *ud,
                                     OTF2_CallingContextRef self,
                                     OTF2_RegionRef region,
                                     OTF2_SourceCodeLocationRef scl,
                                     OTF2_CallingContextRef parent)
{
    otf2_defs *const d = ud;
    otf2_def_context *c;
    (void)scl, (void)parent;
    TABLE_ADD(d, d->contexts, self, "CALLING_CONTEXT", c);
    if (c) {
        c->id = self;
        c->region = region;
    }
    return CB_STATUS(d);
}

static OTF2_CallbackCode def_unknown(void *ud)
{
    otf2_defs *const d = ud;
    d->unknown_defs++;
    return CB_STATUS(d);
}

/* Definitions that carry nothing libslog stores (properties, topologies,
 * source locations, I/O files, callpaths, ...): counted, not kept. */
#define IGNORED_DEF(fn, ...)                                                                       \
    static OTF2_CallbackCode fn(void *ud, __VA_ARGS__)                                             \
    {                                                                                              \
        ((otf2_defs *)ud)->ignored_defs++;                                                         \
        return OTF2_CALLBACK_SUCCESS;                                                              \
    }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
// NOLINTBEGIN(readability-function-size): OTF2 fixes the parameters
IGNORED_DEF(
    ign_paradigm_prop, OTF2_Paradigm a, OTF2_ParadigmProperty b, OTF2_Type c, OTF2_AttributeValue e)
IGNORED_DEF(
    ign_stn_prop, OTF2_SystemTreeNodeRef a, OTF2_StringRef b, OTF2_Type c, OTF2_AttributeValue e)
IGNORED_DEF(
    ign_lg_prop, OTF2_LocationGroupRef a, OTF2_StringRef b, OTF2_Type c, OTF2_AttributeValue e)
IGNORED_DEF(ign_loc_prop, OTF2_LocationRef a, OTF2_StringRef b, OTF2_Type c, OTF2_AttributeValue e)
IGNORED_DEF(ign_callsite,
            OTF2_CallsiteRef a,
            OTF2_StringRef b,
            uint32_t c,
            OTF2_RegionRef e,
            OTF2_RegionRef f)
IGNORED_DEF(ign_callpath, OTF2_CallpathRef a, OTF2_CallpathRef b, OTF2_RegionRef c)
IGNORED_DEF(ign_rmawin, OTF2_RmaWinRef a, OTF2_StringRef b, OTF2_CommRef c, OTF2_RmaWinFlag e)
IGNORED_DEF(ign_recorder, OTF2_MetricRef a, OTF2_LocationRef b)
IGNORED_DEF(
    ign_cartdim, OTF2_CartDimensionRef a, OTF2_StringRef b, uint32_t c, OTF2_CartPeriodicity e)
IGNORED_DEF(ign_carttopo,
            OTF2_CartTopologyRef a,
            OTF2_StringRef b,
            OTF2_CommRef c,
            uint8_t e,
            const OTF2_CartDimensionRef *f)
IGNORED_DEF(ign_cartcoord, OTF2_CartTopologyRef a, uint32_t b, uint8_t c, const uint32_t *e)
IGNORED_DEF(ign_scl, OTF2_SourceCodeLocationRef a, OTF2_StringRef b, uint32_t c)
IGNORED_DEF(
    ign_cc_prop, OTF2_CallingContextRef a, OTF2_StringRef b, OTF2_Type c, OTF2_AttributeValue e)
IGNORED_DEF(ign_interrupt,
            OTF2_InterruptGeneratorRef a,
            OTF2_StringRef b,
            OTF2_InterruptGeneratorMode c,
            OTF2_Base e,
            int64_t f,
            uint64_t g)
IGNORED_DEF(
    ign_io_file_prop, OTF2_IoFileRef a, OTF2_StringRef b, OTF2_Type c, OTF2_AttributeValue e)
IGNORED_DEF(ign_io_file, OTF2_IoFileRef a, OTF2_StringRef b, OTF2_SystemTreeNodeRef c)
IGNORED_DEF(ign_io_handle,
            OTF2_IoHandleRef a,
            OTF2_StringRef b,
            OTF2_IoFileRef c,
            OTF2_IoParadigmRef e,
            OTF2_IoHandleFlag f,
            OTF2_CommRef g,
            OTF2_IoHandleRef h)
IGNORED_DEF(ign_io_precreated, OTF2_IoHandleRef a, OTF2_IoAccessMode b, OTF2_IoStatusFlag c)
IGNORED_DEF(
    ign_callpath_param, OTF2_CallpathRef a, OTF2_ParameterRef b, OTF2_Type c, OTF2_AttributeValue e)
IGNORED_DEF(ign_io_paradigm,
            OTF2_IoParadigmRef a,
            OTF2_StringRef b,
            OTF2_StringRef c,
            OTF2_IoParadigmClass e,
            OTF2_IoParadigmFlag f,
            uint8_t g,
            const OTF2_IoParadigmProperty *h,
            const OTF2_Type *i,
            const OTF2_AttributeValue *j)
// NOLINTEND(readability-function-size)
#pragma GCC diagnostic pop

#define SET(what, fn)                                                                              \
    bad += OTF2_GlobalDefReaderCallbacks_Set##what##Callback(cb, fn) != OTF2_SUCCESS;

/* Definitions the import keeps. */
static int register_kept(OTF2_GlobalDefReaderCallbacks *cb)
{
    int bad = 0;
    SET(Unknown, def_unknown)
    SET(String, def_string)
    SET(ClockProperties, def_clock)
    SET(Paradigm, def_paradigm)
    SET(SystemTreeNode, def_stn)
    SET(SystemTreeNodeDomain, def_stn_domain)
    SET(LocationGroup, def_lgroup)
    SET(Location, def_location)
    SET(Region, def_region)
    SET(Group, def_group)
    SET(Comm, def_comm)
    SET(InterComm, def_intercomm)
    SET(MetricMember, def_member)
    SET(MetricClass, def_metric_class)
    SET(MetricInstance, def_metric_instance)
    SET(Attribute, def_attribute)
    SET(Parameter, def_parameter)
    return bad;
}

/* Definitions read and counted, not kept. */
static int register_ignored(OTF2_GlobalDefReaderCallbacks *cb)
{
    int bad = 0;
    SET(CallingContext, def_context)
    SET(ParadigmProperty, ign_paradigm_prop)
    SET(SystemTreeNodeProperty, ign_stn_prop)
    SET(LocationGroupProperty, ign_lg_prop)
    SET(LocationProperty, ign_loc_prop)
    SET(Callsite, ign_callsite)
    SET(Callpath, ign_callpath)
    SET(RmaWin, ign_rmawin)
    SET(MetricClassRecorder, ign_recorder)
    SET(CartDimension, ign_cartdim)
    SET(CartTopology, ign_carttopo)
    SET(CartCoordinate, ign_cartcoord)
    SET(SourceCodeLocation, ign_scl)
    SET(CallingContextProperty, ign_cc_prop)
    SET(InterruptGenerator, ign_interrupt)
    SET(IoFileProperty, ign_io_file_prop)
    SET(IoRegularFile, ign_io_file)
    SET(IoDirectory, ign_io_file)
    SET(IoHandle, ign_io_handle)
    SET(IoPreCreatedHandleState, ign_io_precreated)
    SET(CallpathParameter, ign_callpath_param)
    SET(IoParadigm, ign_io_paradigm)
    return bad;
}
#undef SET

int otf2_defs_register(OTF2_GlobalDefReaderCallbacks *cb)
{
    return register_kept(cb) + register_ignored(cb) == 0 ? 0 : -1;
}

void otf2_defs_free(otf2_defs *d)
{
    for (uint32_t i = 0; i < d->strings.n; i++) {
        free(d->strings.v[i]);
    }
    for (uint32_t i = 0; i < d->groups.n; i++) {
        free(d->groups.v[i].members);
    }
    for (uint32_t i = 0; i < d->metrics.n; i++) {
        free(d->metrics.v[i].members);
    }
    for (uint32_t i = 0; i < d->locs.n; i++) {
        otf2_def_loc *const l = &d->locs.v[i];
        for (uint32_t k = 0; k < l->cap_stack; k++) {
            free(l->stack[k].args.v);
        }
        free(l->stack);
    }
    for (size_t i = 0; i < 256; i++) {
        free(d->paradigm_names[i]);
    }
#define FREE_TABLE(t)                                                                              \
    free((t).v);                                                                                   \
    otf2_idmap_free(&(t).map)
    FREE_TABLE(d->strings);
    FREE_TABLE(d->stns);
    FREE_TABLE(d->lgroups);
    FREE_TABLE(d->locs);
    FREE_TABLE(d->regions);
    FREE_TABLE(d->groups);
    FREE_TABLE(d->comms);
    FREE_TABLE(d->members);
    FREE_TABLE(d->metrics);
    FREE_TABLE(d->attrs);
    FREE_TABLE(d->params);
    FREE_TABLE(d->contexts);
#undef FREE_TABLE
    memset(d, 0, sizeof *d);
}

/* ---- checks -------------------------------------------------------------- */

static bool string_ok(otf2_defs *d, OTF2_StringRef ref, const char *what, uint64_t id)
{
    if (otf2_defs_string(d, ref)) {
        return true;
    }
    defs_error(d, "%s %" PRIu64 " references undefined STRING %u", what, id, ref);
    return false;
}

static int check_stns(otf2_defs *d)
{
    for (uint32_t i = 0; i < d->stns.n; i++) {
        const otf2_def_stn *const n = &d->stns.v[i];
        if (!string_ok(d, n->name, "SYSTEM_TREE_NODE", n->id) ||
            !string_ok(d, n->class_name, "SYSTEM_TREE_NODE", n->id)) {
            return -1;
        }
        if (n->parent != OTF2_UNDEFINED_SYSTEM_TREE_NODE && !TABLE_GET(d->stns, n->parent)) {
            defs_error(
                d, "SYSTEM_TREE_NODE %" PRIu64 " references undefined SYSTEM_TREE_NODE %" PRIu64,
                n->id, n->parent);
            return -1;
        }
    }
    return 0;
}

static int check_lgroups(otf2_defs *d)
{
    for (uint32_t i = 0; i < d->lgroups.n; i++) {
        const otf2_def_lgroup *const g = &d->lgroups.v[i];
        if (!string_ok(d, g->name, "LOCATION_GROUP", g->id)) {
            return -1;
        }
        if (g->stn != OTF2_UNDEFINED_SYSTEM_TREE_NODE && !TABLE_GET(d->stns, g->stn)) {
            defs_error(d,
                       "LOCATION_GROUP %" PRIu64 " references undefined SYSTEM_TREE_NODE %" PRIu64,
                       g->id, g->stn);
            return -1;
        }
    }
    return 0;
}

static int check_locations(otf2_defs *d)
{
    for (uint32_t i = 0; i < d->locs.n; i++) {
        otf2_def_loc *const l = &d->locs.v[i];
        if (!string_ok(d, l->name, "LOCATION", l->id)) {
            return -1;
        }
        l->group_index = otf2_idmap_get(&d->lgroups.map, l->group);
        if (l->group_index == OTF2_NO_INDEX) {
            defs_error(d, "LOCATION %" PRIu64 " references undefined LOCATION_GROUP %" PRIu64,
                       l->id, l->group);
            return -1;
        }
    }
    return 0;
}

/* Location members of a (COMM_)LOCATIONS group must exist; MPI ones mark
 * their process as an MPI rank. */
static int check_group_members(otf2_defs *d, const otf2_def_group *g)
{
    for (uint32_t k = 0; k < g->nmembers; k++) {
        const otf2_def_loc *const l = TABLE_GET(d->locs, g->members[k]);
        if (!l) {
            defs_error(d, "GROUP %" PRIu64 " references undefined LOCATION %" PRIu64, g->id,
                       g->members[k]);
            return -1;
        }
        if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g->paradigm == OTF2_PARADIGM_MPI) {
            d->lgroups.v[l->group_index].mpi = true;
        }
    }
    return 0;
}

static int check_groups(otf2_defs *d)
{
    for (uint32_t i = 0; i < d->groups.n; i++) {
        const otf2_def_group *const g = &d->groups.v[i];
        if (!string_ok(d, g->name, "GROUP", g->id)) {
            return -1;
        }
        const bool of_locations =
            g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS || g->type == OTF2_GROUP_TYPE_LOCATIONS;
        if (of_locations && check_group_members(d, g) != 0) {
            return -1;
        }
    }
    return 0;
}

static int check_comms(otf2_defs *d)
{
    for (uint32_t i = 0; i < d->comms.n; i++) {
        const otf2_def_comm *const c = &d->comms.v[i];
        if (!string_ok(d, c->name, "COMM", c->id)) {
            return -1;
        }
        if (c->group != OTF2_UNDEFINED_GROUP && !TABLE_GET(d->groups, c->group)) {
            defs_error(d, "COMM %" PRIu64 " references undefined GROUP %" PRIu64, c->id, c->group);
            return -1;
        }
        if (c->group_b != UINT64_MAX && !TABLE_GET(d->groups, c->group_b)) {
            defs_error(d, "INTER_COMM %" PRIu64 " references undefined GROUP %" PRIu64, c->id,
                       c->group_b);
            return -1;
        }
    }
    return 0;
}

static int check_members(otf2_defs *d)
{
    for (uint32_t i = 0; i < d->members.n; i++) {
        const otf2_def_member *const m = &d->members.v[i];
        if (!string_ok(d, m->name, "METRIC_MEMBER", m->id) ||
            !string_ok(d, m->unit, "METRIC_MEMBER", m->id) ||
            !string_ok(d, m->description, "METRIC_MEMBER", m->id)) {
            return -1;
        }
    }
    return 0;
}

static int check_metric(otf2_defs *d, const otf2_def_metric *m)
{
    if (m->instance) {
        const otf2_def_metric *const c = TABLE_GET(d->metrics, m->class_id);
        if (!c || c->instance) {
            defs_error(d, "METRIC_INSTANCE %" PRIu64 " references undefined METRIC_CLASS %" PRIu64,
                       m->id, m->class_id);
            return -1;
        }
        return 0;
    }
    for (uint32_t k = 0; k < m->nmembers; k++) {
        if (!TABLE_GET(d->members, m->members[k])) {
            defs_error(d, "METRIC_CLASS %" PRIu64 " references undefined METRIC_MEMBER %" PRIu64,
                       m->id, m->members[k]);
            return -1;
        }
    }
    return 0;
}

typedef struct recorder_key {
    uint64_t recorder, class_id;
    uint32_t index;
} recorder_key;

static int cmp_recorder_key(const void *pa, const void *pb)
{
    const recorder_key *const a = pa, *const b = pb;
    if (a->recorder != b->recorder) {
        return a->recorder < b->recorder ? -1 : 1;
    }
    return a->class_id < b->class_id ? -1 : a->class_id > b->class_id;
}

/* Mark instances whose recorder records the same class for several scopes
 * (Score-P's "Per process metrics" location does), so that their samples
 * get one category per scope instead of mixing on one track. */
static int mark_shared_recorders(otf2_defs *d)
{
    recorder_key *const k = malloc(((size_t)d->metrics.n + 1) * sizeof *k);
    uint32_t n = 0;
    if (!k) {
        d->oom = true;
        defs_error(d, "out of memory checking METRIC_INSTANCE definitions");
        return -1;
    }
    for (uint32_t i = 0; i < d->metrics.n; i++) {
        if (d->metrics.v[i].instance) {
            k[n++] = (recorder_key){d->metrics.v[i].recorder, d->metrics.v[i].class_id, i};
        }
    }
    qsort(k, n, sizeof *k, cmp_recorder_key);
    for (uint32_t i = 0; i + 1 < n; i++) {
        if (cmp_recorder_key(&k[i], &k[i + 1]) == 0) {
            d->metrics.v[k[i].index].shared = true;
            d->metrics.v[k[i + 1].index].shared = true;
        }
    }
    free(k);
    return 0;
}

static int check_metrics(otf2_defs *d)
{
    if (check_members(d) != 0) {
        return -1;
    }
    for (uint32_t i = 0; i < d->metrics.n; i++) {
        if (check_metric(d, &d->metrics.v[i]) != 0) {
            return -1;
        }
    }
    return mark_shared_recorders(d);
}

static int check_misc(otf2_defs *d)
{
    for (uint32_t i = 0; i < d->regions.n; i++) {
        if (!string_ok(d, d->regions.v[i].name, "REGION", d->regions.v[i].id) ||
            !string_ok(d, d->regions.v[i].description, "REGION", d->regions.v[i].id)) {
            return -1;
        }
    }
    for (uint32_t i = 0; i < d->attrs.n; i++) {
        if (!string_ok(d, d->attrs.v[i].name, "ATTRIBUTE", d->attrs.v[i].id)) {
            return -1;
        }
    }
    for (uint32_t i = 0; i < d->params.n; i++) {
        if (!string_ok(d, d->params.v[i].name, "PARAMETER", d->params.v[i].id)) {
            return -1;
        }
    }
    for (uint32_t i = 0; i < d->contexts.n; i++) {
        const otf2_def_context *const c = &d->contexts.v[i];
        if (c->region != OTF2_UNDEFINED_REGION && !TABLE_GET(d->regions, c->region)) {
            defs_error(d, "CALLING_CONTEXT %" PRIu64 " references undefined REGION %" PRIu64, c->id,
                       c->region);
            return -1;
        }
    }
    return 0;
}

int otf2_defs_check(otf2_defs *d)
{
    if (d->error[0]) {
        return -1;
    }
    if (check_stns(d) != 0 || check_lgroups(d) != 0 || check_locations(d) != 0 ||
        check_groups(d) != 0 || check_comms(d) != 0 || check_metrics(d) != 0 ||
        check_misc(d) != 0) {
        return -1;
    }
    return 0;
}

/* ---- communicator ranks -------------------------------------------------- */

static const otf2_def_group *comm_locations(const otf2_defs *d, OTF2_Paradigm p)
{
    for (uint32_t i = 0; i < d->groups.n; i++) {
        if (d->groups.v[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && d->groups.v[i].paradigm == p) {
            return &d->groups.v[i];
        }
    }
    return NULL;
}

/* Location id of member `rank` of group g; UINT64_MAX if none. */
static uint64_t group_rank_location(const otf2_defs *d, const otf2_def_group *g, uint32_t rank)
{
    if (rank >= g->nmembers) {
        return UINT64_MAX;
    }
    if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS || g->type == OTF2_GROUP_TYPE_LOCATIONS) {
        return g->members[rank];
    }
    if (g->type != OTF2_GROUP_TYPE_COMM_GROUP) {
        return UINT64_MAX;
    }
    const otf2_def_group *const cl = comm_locations(d, g->paradigm);
    const uint64_t idx = g->members[rank];
    if (!cl || idx >= cl->nmembers) {
        return UINT64_MAX;
    }
    return cl->members[idx];
}

static bool group_has_lgroup(otf2_defs *d, const otf2_def_group *g, uint32_t lgroup)
{
    for (uint32_t r = 0; r < g->nmembers; r++) {
        const otf2_def_loc *const l = TABLE_GET(d->locs, group_rank_location(d, g, r));
        if (l && l->group_index == lgroup) {
            return true;
        }
    }
    return false;
}

uint32_t otf2_defs_rank_group(otf2_defs *d, uint64_t comm, uint32_t rank, uint64_t self)
{
    const otf2_def_comm *const c = TABLE_GET(d->comms, comm);
    const otf2_def_loc *const me = TABLE_GET(d->locs, self);
    if (!c || !me) {
        return OTF2_NO_INDEX;
    }
    const otf2_def_group *g = TABLE_GET(d->groups, c->group);
    if (c->group_b != UINT64_MAX && g && group_has_lgroup(d, g, me->group_index)) {
        /* inter-communicator: ranks name members of the remote group */
        g = TABLE_GET(d->groups, c->group_b);
    }
    if (!g) {
        return OTF2_NO_INDEX;
    }
    if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
        return rank == 0 ? me->group_index : OTF2_NO_INDEX;
    }
    const otf2_def_loc *const peer = TABLE_GET(d->locs, group_rank_location(d, g, rank));
    return peer ? peer->group_index : OTF2_NO_INDEX;
}

/* ---- names ------------------------------------------------------------- */

const char *otf2_paradigm_name(const otf2_defs *d, OTF2_Paradigm p, char *buf, size_t n)
{
    static const char *const names[] = {"UNKNOWN",
                                        "USER",
                                        "COMPILER",
                                        "OPENMP",
                                        "MPI",
                                        "CUDA",
                                        "MEASUREMENT_SYSTEM",
                                        "PTHREAD",
                                        "HMPP",
                                        "OMPSS",
                                        "HARDWARE",
                                        "GASPI",
                                        "UPC",
                                        "SHMEM",
                                        "WINTHREAD",
                                        "QTTHREAD",
                                        "ACETHREAD",
                                        "TBBTHREAD",
                                        "OPENACC",
                                        "OPENCL",
                                        "MTAPI",
                                        "SAMPLING",
                                        "NONE",
                                        "HIP",
                                        "KOKKOS"};
    if (d && d->paradigm_names[p]) {
        return d->paradigm_names[p];
    }
    if (p < sizeof names / sizeof names[0]) {
        return names[p];
    }
    (void)snprintf(buf, n, "paradigm %u", (unsigned)p);
    return buf;
}

const char *otf2_role_name(OTF2_RegionRole r)
{
    static const char *const names[] = {"unknown",
                                        "function",
                                        "wrapper",
                                        "loop",
                                        "code",
                                        "parallel",
                                        "sections",
                                        "section",
                                        "workshare",
                                        "single",
                                        "single_sblock",
                                        "master",
                                        "critical",
                                        "critical_sblock",
                                        "atomic",
                                        "barrier",
                                        "implicit_barrier",
                                        "flush",
                                        "ordered",
                                        "ordered_sblock",
                                        "task",
                                        "task_create",
                                        "task_wait",
                                        "coll_one2all",
                                        "coll_all2one",
                                        "coll_all2all",
                                        "coll_other",
                                        "file_io",
                                        "point2point",
                                        "rma",
                                        "data_transfer",
                                        "artificial",
                                        "thread_create",
                                        "thread_wait",
                                        "task_untied",
                                        "allocate",
                                        "deallocate",
                                        "reallocate",
                                        "file_io_metadata"};
    return r < sizeof names / sizeof names[0] ? names[r] : "invalid";
}

const char *otf2_collective_name(OTF2_CollectiveOp op)
{
    static const char *const names[] = {"BARRIER",
                                        "BCAST",
                                        "GATHER",
                                        "GATHERV",
                                        "SCATTER",
                                        "SCATTERV",
                                        "ALLGATHER",
                                        "ALLGATHERV",
                                        "ALLTOALL",
                                        "ALLTOALLV",
                                        "ALLTOALLW",
                                        "ALLREDUCE",
                                        "REDUCE",
                                        "REDUCE_SCATTER",
                                        "SCAN",
                                        "EXSCAN",
                                        "REDUCE_SCATTER_BLOCK",
                                        "CREATE_HANDLE",
                                        "DESTROY_HANDLE",
                                        "ALLOCATE",
                                        "DEALLOCATE",
                                        "CREATE_HANDLE_AND_ALLOCATE",
                                        "DESTROY_HANDLE_AND_DEALLOCATE"};
    return op < sizeof names / sizeof names[0] ? names[op] : "COLLECTIVE";
}

/* ---- clock -------------------------------------------------------------- */

__extension__ typedef unsigned __int128 otf2_u128;

void otf2_clock_init(otf2_clock *c, uint64_t offset, uint64_t resolution)
{
    c->offset = offset;
    c->resolution = resolution == 0 ? 1000000000u : resolution;
    c->inv = UINT64_MAX / c->resolution;
}

/* x / c->resolution (remainder in *rem) without a division instruction:
 * q = floor(x * inv / 2^64) with inv = floor((2^64 - 1) / res) satisfies
 * x / res - 2 < q <= x / res, so q is the quotient or one below it and a
 * single correction makes it exact for every 64-bit x.  The two divq per
 * event this replaces were the largest part of the importer's own time
 * (doc/PERFORMANCE.md, "OTF2 import speed"). */
static uint64_t clock_div(const otf2_clock *c, uint64_t x, uint64_t *rem)
{
    assert(c->resolution != 0); /* otf2_clock_init not called */
    uint64_t q = (uint64_t)(((otf2_u128)x * c->inv) >> 64);
    uint64_t r = x - q * c->resolution;
    while (r >= c->resolution) {
        r -= c->resolution;
        q++;
    }
    *rem = r;
    return q;
}

int64_t otf2_clock_ns(const otf2_clock *c, uint64_t t)
{
    const bool neg = t < c->offset;
    const uint64_t dt = neg ? c->offset - t : t - c->offset;
    const uint64_t res = c->resolution;
    otf2_u128 q;
    if (res <= 18000000000u) {
        /* dt * 1e9 / res = whole * 1e9 + rest * 1e9 / res, and rest * 1e9 +
         * res / 2 < 1.81e19 fits 64 bits: two 64-bit quotients instead of a
         * 128-bit one (the same result; every Score-P clock takes this path) */
        uint64_t rest, unused;
        const uint64_t whole = clock_div(c, dt, &rest);
        q = (otf2_u128)whole * 1000000000u + clock_div(c, rest * 1000000000u + res / 2, &unused);
    } else {
        q = ((otf2_u128)dt * 1000000000u + res / 2) / res;
    }
    if (q > (otf2_u128)INT64_MAX) {
        return neg ? INT64_MIN : INT64_MAX;
    }
    return neg ? -(int64_t)q : (int64_t)q;
}

int64_t otf2_ticks_to_ns(uint64_t t, uint64_t offset, uint64_t resolution)
{
    otf2_clock c;
    otf2_clock_init(&c, offset, resolution);
    return otf2_clock_ns(&c, t);
}
