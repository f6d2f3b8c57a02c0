/* SPDX-License-Identifier: MIT
 *
 * trace_fortify.h - prototypes of the glibc entry points that programs
 * built with _FORTIFY_SOURCE or large-file macros call instead of the
 * plain names (__open_2, __read_chk, __fread_chk...): glibc declares them
 * only inside its fortify headers, and the wrappers define them.  Here and
 * in the wrappers, parameters are named as glibc's prototypes name them,
 * without the leading underscores (clang-tidy's
 * readability-inconsistent-declaration-parameter-name holds a definition
 * to the names of its declaration in <unistd.h>, <stdio.h>...).
 * Layer: slog-trace preload library.
 */
#ifndef SLOG_TRACE_FORTIFY_H
#define SLOG_TRACE_FORTIFY_H

#include <stdarg.h>
#include <stdio.h>
#include <sys/types.h>

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t nbytes, off_t offset, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t nbytes, off64_t offset, size_t buflen);
size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *stream);
char *__fgets_chk(char *s, size_t size, int n, FILE *stream);
size_t __fread_unlocked_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *stream);
char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *stream);
int __printf_chk(int flag, const char *format, ...);
int __fprintf_chk(FILE *stream, int flag, const char *format, ...);
int __vprintf_chk(int flag, const char *format, va_list ap);
int __vfprintf_chk(FILE *stream, int flag, const char *format, va_list ap);
int __dprintf_chk(int fd, int flag, const char *format, ...);
int __vdprintf_chk(int fd, int flag, const char *format, va_list ap);

#endif /* SLOG_TRACE_FORTIFY_H */
