/* SPDX-License-Identifier: MIT
 *
 * trace_posix_pipe.c - wrappers of the calls that make descriptors without
 * a path: pipe, pipe2, socket, socketpair, accept, accept4.  Each names
 * its new descriptors in the table (trace_fdtab.h) by kind, "pipe" or
 * "socket:" and the address family ("socket:unix", "socket:inet",
 * "socket:inet6", else "socket:" and its number), so the reads and writes
 * on them say what they went to; a fixed set of names, since the table
 * keeps every name for the process's life.  The call is recorded with its
 * descriptors and result.
 * Layer: slog-trace preload library.
 */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "trace_core.h"
#include "trace_fdtab.h"

/* "socket:" and the family's name. */
static const char *socket_name(int domain, char *buf, size_t size)
{
    switch (domain) {
    case AF_UNIX:
        return "socket:unix";
    case AF_INET:
        return "socket:inet";
    case AF_INET6:
        return "socket:inet6";
    default:
        (void)snprintf(buf, size, "socket:%d", domain);
        return buf;
    }
}

/* The family of socket fd (AF_UNSPEC when it cannot be told). */
static int socket_domain(int fd)
{
    int domain = AF_UNSPEC;
    socklen_t len = sizeof domain;
    return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 ? domain : AF_UNSPEC;
}

/* What a call made: its descriptors fds[0..n), the listening socket of an
 * accept (else -1), their name. */
typedef struct made_fds {
    trace_fn fn;
    const int *fds;
    int n;
    int from;
    const char *name;
} made_fds;

/* After a call that made m's descriptors (r: its result): names, record. */
static int made(const trace_call *c, bool traced, const made_fds *m, int r)
{
    const int err = errno;
    for (int i = 0; r >= 0 && i < m->n; i++) {
        fdtab_opened(m->fds[i], m->name);
    }
    if (traced) {
        trace_args a = {.n = 0};
        if (r >= 0 && m->n == 2) {
            targ_int(&a, "fd0", m->fds[0]);
            targ_int(&a, "fd1", m->fds[1]);
        }
        if (m->from >= 0) {
            targ_int(&a, "fd", m->from);
        }
        targ_str(&a, "path", m->name);
        targ_result(&a, r, err);
        trace_leave(c, m->fn, &a);
    }
    errno = err;
    return r;
}

#define PAIR_BODY(fn, name, pair, real, ...)                                                       \
    if (trace_self.guard != 0) {                                                                   \
        return real(__VA_ARGS__);                                                                  \
    }                                                                                              \
    trace_call c;                                                                                  \
    const bool traced = trace_enter(&c);                                                           \
    const int r = real(__VA_ARGS__);                                                               \
    return made(&c, traced, &(const made_fds){fn, pair, 2, -1, name}, r)

int pipe(int pipedes[2])
{
    PAIR_BODY(TRACE_FN_PIPE, "pipe", pipedes, TRACE_REAL(pipe), pipedes);
}

int pipe2(int pipedes[2], int flags)
{
    PAIR_BODY(TRACE_FN_PIPE, "pipe", pipedes, TRACE_REAL(pipe2), pipedes, flags);
}

int socketpair(int domain, int type, int protocol, int fds[2])
{
    char buf[32];
    PAIR_BODY(TRACE_FN_SOCKET, socket_name(domain, buf, sizeof buf), fds, TRACE_REAL(socketpair),
              domain, type, protocol, fds);
}

int socket(int domain, int type, int protocol)
{
    if (trace_self.guard != 0) {
        return TRACE_REAL(socket)(domain, type, protocol);
    }
    trace_call c;
    const bool traced = trace_enter(&c);
    const int fd = TRACE_REAL(socket)(domain, type, protocol);
    char buf[32];
    const made_fds m = {TRACE_FN_SOCKET, &fd, 1, -1, socket_name(domain, buf, sizeof buf)};
    return made(&c, traced, &m, fd);
}

/* An accepted socket is named by its listening socket's family. */
#define ACCEPT_BODY(real, fd, ...)                                                                 \
    if (trace_self.guard != 0) {                                                                   \
        return real(fd, __VA_ARGS__);                                                              \
    }                                                                                              \
    trace_call c;                                                                                  \
    const bool traced = trace_enter(&c);                                                           \
    const int fd_ = real(fd, __VA_ARGS__);                                                         \
    const int err_ = errno;                                                                        \
    char buf_[32];                                                                                 \
    const char *const name_ = socket_name(socket_domain(fd), buf_, sizeof buf_);                   \
    errno = err_;                                                                                  \
    return made(&c, traced, &(const made_fds){TRACE_FN_ACCEPT, &fd_, 1, fd, name_}, fd_)

/* glibc declares the address as __SOCKADDR_ARG (a transparent union). */
int accept(int fd, __SOCKADDR_ARG addr, socklen_t *len)
{
    ACCEPT_BODY(TRACE_REAL(accept), fd, addr, len);
}

int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *len, int flags)
{
    ACCEPT_BODY(TRACE_REAL(accept4), fd, addr, len, flags);
}
