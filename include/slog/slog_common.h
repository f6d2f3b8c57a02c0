/* SPDX-License-Identifier: MIT
 *
 * slog_common.h - status codes, the error record, versions and the data
 * model shared by the writer and the reader: kinds, timelines, categories,
 * args and the four drawables.  Public headers include only <stddef.h>,
 * <stdint.h> and <stdbool.h>.
 */
#ifndef SLOG_COMMON_H
#define SLOG_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SLOG_BUILDING_LIBRARY) && defined(__GNUC__)
#    define SLOG_API __attribute__((visibility("default")))
#else
#    define SLOG_API
#endif

#define SLOG_VERSION_MAJOR  0
#define SLOG_VERSION_MINOR  2
#define SLOG_VERSION_PATCH  0
#define SLOG_VERSION_NUMBER (SLOG_VERSION_MAJOR * 10000 + SLOG_VERSION_MINOR * 100 + SLOG_VERSION_PATCH)
#define SLOG_VERSION_STRING "0.2.0"

/* Options structs (slog_reader_options, slog_writer_options,
 * slog_query_options, slog_stats_options, slog_search_options) start with
 * uint32_t struct_size and only ever grow at the end.  Set struct_size with the SLOG_*_OPTIONS_INIT macro or the
 * slog_*_options_init() function, then change the members you need; a zero
 * member means its default.  The library reads a member only when it lies
 * wholly within the caller's first struct_size bytes, so a program compiled
 * against an older, smaller struct keeps working and the members it lacks
 * take their defaults.  struct_size 0 (or a NULL options pointer where
 * allowed) means every member takes its default.  A struct_size larger than
 * the library's struct (a newer caller) is accepted when the bytes the
 * library does not know are all zero; struct_size 1..3, above 4096, or a
 * newer member set to a non-zero value is SLOG_EINVAL, and so is a non-zero
 * `reserved` member or a flag bit the library does not know. */

/* Status codes: 0 ok, < 0 error, > 0 a normal outcome.  Numbers are frozen. */
#define SLOG_OK       0
#define SLOG_END      1     /* iteration finished */
#define SLOG_ENOMEM   (-1)  /* out of memory */
#define SLOG_EIO      (-2)  /* the operating system or HDF5 failed to read or write */
#define SLOG_ECORRUPT (-3)  /* the file is damaged (truncated, bad checksum, bad field) */
#define SLOG_EPARSE   (-4)  /* input text or bytes do not follow their format */
#define SLOG_EVERSION (-5)  /* file written by a newer, incompatible format version */
#define SLOG_ESTATE   (-6)  /* call not allowed in the object's current state */
#define SLOG_EINVAL   (-7)  /* an argument is out of range */
#define SLOG_EINTR    (-8)  /* a callback asked to stop */
#define SLOG_EFORMAT  (-9)  /* not a libslog file (or not HDF5 at all) */

/** Error details; every fallible call takes an optional one last. */
typedef struct slog_error {
    int code;            /* same value the call returned */
    uint64_t offset;     /* input byte offset, UINT64_MAX if none */
    char source[256];    /* file involved, "" if none */
    char message[256];   /* one sentence, no newline */
} slog_error;

/**
 * Name of a status code.
 * @param code  any value
 * @return "SLOG_ECORRUPT" and so on, "SLOG_UNKNOWN" for a value that is no
 *         code; a static string, never NULL
 * Thread safety: any thread.  @since 0.1
 */
SLOG_API const char *slog_status_name(int code);

/**
 * Version of the library the program runs with (compare with
 * SLOG_VERSION_NUMBER, the version it was compiled against).
 * @return MAJOR * 10000 + MINOR * 100 + PATCH
 * Thread safety: any thread.  @since 0.1
 */
SLOG_API unsigned slog_version_number(void);

/**
 * Version string of the library the program runs with ("0.2.0").
 * @return a static string, never NULL
 * Thread safety: any thread.  @since 0.1
 */
SLOG_API const char *slog_version_string(void);

/** Kind of a drawable, category or preview.  Also used as a bit mask (1u << kind). */
typedef enum slog_kind {
    SLOG_KIND_STATE = 0,
    SLOG_KIND_EVENT = 1,
    SLOG_KIND_ARROW = 2,
    SLOG_KIND_COUNTER = 3,
    SLOG_KIND_PREVIEW = 4, /* only in query results */
    SLOG_KIND_RUN = 5      /* only in query results: a pixel run (slog_reader.h) */
} slog_kind;

#define SLOG_KINDS_ALL 0x3fu

/** Kind of a timeline (a row in a viewer). */
typedef enum slog_timeline_kind {
    SLOG_TIMELINE_GENERIC = 0,
    SLOG_TIMELINE_HOST = 1,
    SLOG_TIMELINE_PROCESS = 2,
    SLOG_TIMELINE_THREAD = 3,
    SLOG_TIMELINE_ASYNC = 4,   /* async spans of a process */
    SLOG_TIMELINE_COUNTER = 5, /* counter track */
    SLOG_TIMELINE_GPU = 6,
    SLOG_TIMELINE_RANK = 7
} slog_timeline_kind;

#define SLOG_NO_PARENT UINT32_MAX

/** Type of an arg value. */
typedef enum slog_arg_type {
    SLOG_ARG_STRING = 0,
    SLOG_ARG_INT = 1,    /* int64 */
    SLOG_ARG_UINT = 2,   /* uint64 (values above INT64_MAX) */
    SLOG_ARG_DOUBLE = 3,
    SLOG_ARG_BOOL = 4,
    SLOG_ARG_JSON = 5    /* JSON text of an object, array or null */
} slog_arg_type;

/** One key -> value pair.  Strings are borrowed for the call (writer) or
 *  until the next slog_query_next (reader). */
typedef struct slog_arg {
    const char *key;
    slog_arg_type type;
    union {
        const char *s; /* STRING and JSON */
        int64_t i;
        uint64_t u;
        double d;
        bool b;
    } v;
} slog_arg;

/** A state: an interval on one timeline.  depth 0 is the outermost. */
typedef struct slog_state {
    uint32_t timeline;
    uint32_t category;
    int64_t start;
    int64_t end; /* end >= start */
    uint32_t depth;
    uint32_t nargs;
    const slog_arg *args;
} slog_state;

/** An event: one point in time on one timeline. */
typedef struct slog_event {
    uint32_t timeline;
    uint32_t category;
    int64_t time;
    uint32_t nargs;
    const slog_arg *args;
} slog_event;

/** An arrow (message, flow): from one timeline at start to another at end. */
typedef struct slog_arrow {
    uint32_t category;
    uint32_t from;
    uint32_t to;
    int64_t start;
    int64_t end; /* end >= start */
    uint32_t nargs;
    const slog_arg *args;
} slog_arrow;

/** A counter sample: the value of a counter category on a timeline. */
typedef struct slog_counter {
    uint32_t timeline;
    uint32_t category;
    int64_t time;
    double value;
} slog_counter;

#ifdef __cplusplus
}
#endif
#endif /* SLOG_COMMON_H */
