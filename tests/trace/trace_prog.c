/* SPDX-License-Identifier: MIT
 *
 * trace_prog.c - the program slog-trace's tests trace: it makes known
 * calls with known arguments in a directory, so that the test can find
 * each of them in the trace with its args.
 *     trace_prog calls DIR    POSIX and stdio calls, a failing open (errno
 *                             checked after it), 2 threads, a fork child,
 *                             then every other I/O entry point the tracer
 *                             wraps (io_entry_points; reads stdin to its end)
 *     trace_prog exit N       a few calls, then exit(N)
 *     trace_prog _exit N      a few calls, then _exit(N)
 *     trace_prog raise N      a few calls, then raise(N) (N left at SIG_DFL)
 *     trace_prog kill N       a few calls, then kill(getpid(), N)
 *     trace_prog crash DIR    the calls of `calls` (no threads, no fork),
 *                             then waits for a line on stdin and crashes
 *                             with SIGSEGV (a NULL store)
 *     trace_prog wait DIR     the same, then waits for a line and exits 0
 *                             (the test kills it with SIGKILL first)
 *     trace_prog pipes DIR    a pipe and a socket pair, 3 bytes written to
 *                             and read from each, an inet socket and a
 *                             failing accept on it; prints the five fds
 *                             trace_prog scanf DIR    DIR/nums.txt ("12 34 56\n") read by
 *                             fscanf (C99: __isoc99_fscanf), the GNU fscanf
 *                             and vfscanf (by symbol), then fscanf at its end
 *     trace_prog copy DIR     DIR/src.bin (1000 bytes) copied to DIR/dst.bin
 *                             by copy_file_range, its first 600 bytes to
 *                             DIR/dst2.bin by sendfile
 *     trace_prog names DIR    DIR/n1 renamed to n2 (rename), n3 (renameat
 *                             on DIR's descriptor), n2 made again and not
 *                             moved onto n3 (renameat2, RENAME_NOREPLACE:
 *                             EEXIST); n2, n3 and the directory DIR/sub
 *                             removed by unlinkat, then n3 again (ENOENT);
 *                             DIR/tmpXXXXXX made by mkostemp, 5 bytes
 *                             written to it (prints its name), removed
 *     trace_prog tell DIR     DIR/tell.txt written "hello" by stdio, then
 *                             ftell (5), fseeko to 2, ftello and ftello64 (2)
 *     trace_prog closes DIR   4 threads, each 20000 times: its own
 *                             DIR/closeK.txt opened, read and closed (close,
 *                             or fdopen + fclose)
 *     trace_prog pexit DIR    the main thread ends by pthread_exit; another
 *                             thread writes DIR/pexit.dat 5 times, 1 byte
 *                             each, and returns (the process then exits 0)
 *     trace_prog forks DIR    2 threads pwrite DIR/spin.dat in a loop while
 *                             the main thread forks 200 children, each
 *                             appending 1 byte to DIR/child.dat
 * Exit status: 0, or 10-29 when a call did not behave as without tracing
 * (a result, or errno: left alone by successful calls, ENOENT after the
 * failing open).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[1024];

static void path_of(char *out, size_t size, const char *name)
{
    (void)snprintf(out, size, "%s/%s", dir, name);
}

static int posix_calls(void)
{
    char path[1200];
    char buf[4096];
    path_of(path, sizeof path, "posix.dat");
    errno = 0; /* a successful call leaves errno alone: so must the tracer */
    const int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    memset(buf, 'x', sizeof buf);
    if (fd < 0 || write(fd, buf, 4096) != 4096 || errno != 0 || pwrite(fd, buf, 100, 8192) != 100 ||
        lseek(fd, 0, SEEK_SET) != 0 || read(fd, buf, 4096) != 4096 ||
        pread(fd, buf, 100, 8192) != 100 || fsync(fd) != 0 || fdatasync(fd) != 0) {
        return 11;
    }
    void *map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    struct stat st;
    if (map == MAP_FAILED || munmap(map, 4096) != 0 || fstat(fd, &st) != 0 ||
        st.st_size != 8292 || stat(path, &st) != 0 || lstat(path, &st) != 0 || close(fd) != 0) {
        return 12;
    }
    printf("posix fd=%d\n", fd);
    return 0;
}

static int stdio_calls(void)
{
    char path[1200];
    char buf[1000];
    path_of(path, sizeof path, "stdio.dat");
    FILE *f = fopen(path, "w+");
    memset(buf, 'y', sizeof buf);
    if (f == NULL || fwrite(buf, 1, 1000, f) != 1000 || fseek(f, 0, SEEK_SET) != 0 ||
        fread(buf, 1, 1000, f) != 1000) {
        return 13;
    }
    printf("stdio fd=%d\n", fileno(f));
    return fclose(f) == 0 ? 0 : 14;
}

/* A failing call: the program must see the errno the C library set. */
static int failing_call(void)
{
    char path[1200];
    path_of(path, sizeof path, "missing/none.dat");
    errno = 0;
    const int fd = open(path, O_RDONLY);
    return fd == -1 && errno == ENOENT ? 0 : 15;
}

static void *thread_main(void *arg)
{
    char path[1200];
    char name[32];
    (void)snprintf(name, sizeof name, "thread%d.dat", (int)(intptr_t)arg);
    path_of(path, sizeof path, name);
    const int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    const int ok = fd >= 0 && write(fd, name, 7) == 7 && close(fd) == 0;
    return ok ? NULL : (void *)1;
}

static int threads_and_fork(void)
{
    pthread_t th[2];
    void *res[2] = {NULL, NULL};
    for (intptr_t i = 0; i < 2; i++) {
        if (pthread_create(&th[i], NULL, thread_main, (void *)(i + 1)) != 0) {
            return 16;
        }
    }
    for (int i = 0; i < 2; i++) {
        (void)pthread_join(th[i], &res[i]);
    }
    if (res[0] != NULL || res[1] != NULL) {
        return 17;
    }
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
        char path[1200];
        path_of(path, sizeof path, "child.dat");
        const int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        _exit(fd >= 0 && write(fd, "child", 5) == 5 && close(fd) == 0 ? 0 : 1);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        return 18;
    }
    printf("child pid=%d\n", (int)child);
    return 0;
}

/* The I/O entry points beyond the plain calls: the stdio _unlocked family,
 * characters, lines, the printf family, the fortified __*_chk names a
 * program built with _FORTIFY_SOURCE calls, end of file and a failing read
 * on a stream (T13), and the vector calls preadv/pwritev (with 64 and v2
 * forms).  Calls that <stdio.h> inlines when optimising (getc_unlocked,
 * putchar_unlocked, getline...) are made through pointers, so the
 * library's symbol is what runs; the __*_chk names are declared here, as
 * glibc declares them only under fortify.  trace_test.py expects each
 * call, in this order, with these args. */
int __printf_chk(int flag, const char *format, ...);
int __fprintf_chk(FILE *stream, int flag, const char *format, ...);
int __vprintf_chk(int flag, const char *format, va_list ap);
int __vfprintf_chk(FILE *stream, int flag, const char *format, va_list ap);
int __dprintf_chk(int fd, int flag, const char *format, ...);
size_t __fread_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *stream);
size_t __fread_unlocked_chk(void *ptr, size_t ptrlen, size_t size, size_t n, FILE *stream);
char *__fgets_chk(char *s, size_t size, int n, FILE *stream);
char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *stream);
ssize_t __read_chk(int fd, void *buf, size_t nbytes, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t nbytes, off_t offset, size_t buflen);

/* The library's symbols, not <stdio.h>'s inline bodies. */
static int (*volatile getc_u)(FILE *) = getc_unlocked;
static int (*volatile fgetc_u)(FILE *) = fgetc_unlocked;
static int (*volatile putc_u)(int, FILE *) = putc_unlocked;
static int (*volatile fputc_u)(int, FILE *) = fputc_unlocked;
static int (*volatile putchar_u)(int) = putchar_unlocked;
static int (*volatile putchar_p)(int) = putchar;
static int (*volatile getchar_p)(void) = getchar;
static int (*volatile getchar_u)(void) = getchar_unlocked;
static ssize_t (*volatile getline_p)(char **, size_t *, FILE *) = getline;
static int (*volatile vprintf_p)(const char *, va_list) = vprintf;

static int vf(FILE *f, bool chk, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    const int r = f == NULL ? (chk ? __vprintf_chk(1, format, ap) : vprintf_p(format, ap))
                            : (chk ? __vfprintf_chk(f, 1, format, ap) : vfprintf(f, format, ap));
    va_end(ap);
    return r;
}

/* 49 bytes through the writing calls: 30 'z', "abc\n", "def\n", "42\n",
 * "chk\n", "7\n", "8\n". */
static bool stream_writes(FILE *f)
{
    char buf[30];
    memset(buf, 'z', sizeof buf);
    return fwrite_unlocked(buf, 10, 3, f) == 3 && fputs_unlocked("abc\n", f) >= 0 &&
           fputc_u('d', f) == 'd' && putc_u('e', f) == 'e' && putc('f', f) == 'f' &&
           fputc('\n', f) == '\n' && fprintf(f, "%d\n", 42) == 3 &&
           __fprintf_chk(f, 1, "%s\n", "chk") == 4 && vf(f, false, "%d\n", 7) == 2 &&
           vf(f, true, "%d\n", 8) == 2;
}

/* The same 49 bytes back through the reading calls, then end of file. */
static bool stream_reads(FILE *f)
{
    char buf[64];
    char *line = NULL;
    size_t n = 0;
    const bool ok =
        fread_unlocked(buf, 1, 10, f) == 10 && __fread_unlocked_chk(buf, sizeof buf, 1, 10, f) == 10 &&
        __fread_chk(buf, sizeof buf, 1, 10, f) == 10 && fgetc_u(f) == 'a' && getc_u(f) == 'b' &&
        getc(f) == 'c' && fgetc(f) == '\n' && ungetc('\n', f) == '\n' &&
        fgets_unlocked(buf, sizeof buf, f) != NULL && strcmp(buf, "\n") == 0 &&
        __fgets_unlocked_chk(buf, sizeof buf, sizeof buf, f) != NULL &&
        __fgets_chk(buf, sizeof buf, sizeof buf, f) != NULL && strcmp(buf, "42\n") == 0 &&
        getline_p(&line, &n, f) == 4 && getdelim(&line, &n, '\n', f) == 2 &&
        __getdelim(&line, &n, '\n', f) == 2;
    free(line);
    return ok;
}

/* End of file after a failed stat left errno ENOENT: each read returns
 * its end-of-file value and errno stays ENOENT; then a read on a stream
 * opened for writing fails (EBADF, ferror set). */
static int stream_ends(FILE *f, FILE *w)
{
    char buf[64];
    char *line = NULL;
    size_t n = 0;
    struct stat st;
    if (stat("/nonexistent/slog-trace", &st) == 0 || errno != ENOENT) {
        return 23;
    }
    const bool eof = fgets(buf, sizeof buf, f) == NULL && fread(buf, 1, 10, f) == 0 &&
                     fgetc(f) == EOF && getline_p(&line, &n, f) == -1 && errno == ENOENT &&
                     getchar_p() == EOF && getchar_u() == EOF;
    free(line);
    if (!eof || feof(f) == 0 || ferror(f) != 0) {
        return 24;
    }
    return fgetc(w) == EOF && errno == EBADF && ferror(w) != 0 ? 0 : 25;
}

static int stdio_entry_points(void)
{
    char path[1200];
    path_of(path, sizeof path, "more.dat");
    FILE *f = fopen(path, "w+");
    FILE *w = fopen(path, "a");
    if (f == NULL || w == NULL || !stream_writes(f) || fseek(f, 0, SEEK_SET) != 0) {
        return 20;
    }
    if (!stream_reads(f)) {
        return 21;
    }
    const int rc = stream_ends(f, w);
    printf("more fd=%d\n", fileno(f));
    printf("more wfd=%d\n", fileno(w));
    return fclose(w) == 0 && fclose(f) == 0 ? rc : 22;
}

/* stdout (parsed by the test: each line "WORD KEY=N"). */
static int stdout_entry_points(void)
{
    const bool ok = printf("printf n=%d\n", 1) == 11 && __printf_chk(1, "chk n=%d\n", 2) == 8 &&
                    vf(NULL, false, "vprintf n=%d\n", 3) == 12 &&
                    vf(NULL, true, "vchk n=%d\n", 4) == 9 && puts("puts n=5") >= 0 &&
                    printf("putchar n=") == 10 && putchar_p('6') == '6' && putchar_u('\n') == '\n' &&
                    fflush(stdout) == 0 && dprintf(1, "dprintf n=%d\n", 7) == 12 &&
                    __dprintf_chk(1, 1, "dchk n=%d\n", 8) == 9;
    return ok ? 0 : 26;
}

/* 4 x 300 bytes at offsets 0, 300, 600, 900, read back; a read past the end. */
static int vector_entry_points(void)
{
    char path[1200];
    char b[300];
    memset(b, 'v', sizeof b);
    const struct iovec v[2] = {{b, 100}, {b + 100, 200}};
    path_of(path, sizeof path, "vec.dat");
    const int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0 || pwritev(fd, v, 2, 0) != 300 || pwritev64(fd, v, 2, 300) != 300 ||
        pwritev2(fd, v, 2, 600, 0) != 300 || pwritev64v2(fd, v, 2, 900, 0) != 300 ||
        preadv(fd, v, 2, 0) != 300 || preadv64(fd, v, 2, 300) != 300 ||
        preadv2(fd, v, 2, 600, 0) != 300 || preadv64v2(fd, v, 2, 900, 0) != 300 ||
        preadv2(fd, v, 2, 1200, 0) != 0) {
        return 27;
    }
    if (writev(fd, v, 2) != 300 || lseek(fd, 0, SEEK_SET) != 0 || readv(fd, v, 2) != 300 ||
        __read_chk(fd, b, 10, sizeof b) != 10 || __pread_chk(fd, b, 10, 5, sizeof b) != 10) {
        return 28;
    }
    printf("vec fd=%d\n", fd);
    return close(fd) == 0 ? 0 : 29;
}

static int io_entry_points(void)
{
    int rc = stdio_entry_points();
    rc = rc != 0 ? rc : stdout_entry_points();
    return rc != 0 ? rc : vector_entry_points();
}

static int calls(bool more)
{
    int rc = posix_calls();
    rc = rc != 0 ? rc : stdio_calls();
    rc = rc != 0 ? rc : failing_call();
    if (rc != 0 || !more) {
        return rc;
    }
    rc = threads_and_fork();
    return rc != 0 ? rc : io_entry_points();
}

/* Wait for a line on stdin (the test has seen the calls in the trace). */
static void wait_for_go(void)
{
    char line[16];
    fflush(stdout);
    (void)!read(0, line, sizeof line);
}

/* Descriptors without a path: written to and read from through each. */
static int pipe_calls(void)
{
    int p[2], s[2];
    char buf[3];
    if (pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0) {
        return 30;
    }
    if (write(p[1], "abc", 3) != 3 || read(p[0], buf, 3) != 3 || write(s[0], "xyz", 3) != 3 ||
        read(s[1], buf, 3) != 3) {
        return 31;
    }
    const int in = socket(AF_INET, SOCK_STREAM, 0);
    if (in < 0 || accept(in, NULL, NULL) != -1 || errno != EINVAL) {
        return 32; /* not listening: EINVAL */
    }
    printf("%d %d %d %d %d\n", p[0], p[1], s[0], s[1], in);
    return close(p[0]) | close(p[1]) | close(s[0]) | close(s[1]) | close(in);
}

typedef int fscanf_fn(FILE *stream, const char *format, ...);
typedef int vfscanf_fn(FILE *stream, const char *format, va_list ap);

/* The GNU vfscanf by its symbol (<stdio.h> maps the name to the C99 one). */
static int gnu_vfscanf(FILE *f, const char *format, ...)
{
    vfscanf_fn *const v = __extension__(vfscanf_fn *)dlsym(RTLD_DEFAULT, "vfscanf");
    va_list ap;
    va_start(ap, format);
    const int r = v != NULL ? v(f, format, ap) : -2;
    va_end(ap);
    return r;
}

/* 12, 34 and 56 by three entry points, then the end of the file. */
static int scanf_calls(void)
{
    char path[1100];
    path_of(path, sizeof path, "nums.txt");
    FILE *const w = fopen(path, "w");
    if (w == NULL || fputs("12 34 56\n", w) < 0 || fclose(w) != 0) {
        return 40;
    }
    fscanf_fn *const gnu = __extension__(fscanf_fn *)dlsym(RTLD_DEFAULT, "fscanf");
    FILE *const f = fopen(path, "r");
    int a = 0, b = 0, c = 0, d = 0;
    if (f == NULL || gnu == NULL || fscanf(f, "%d", &a) != 1 || gnu(f, "%d", &b) != 1 ||
        gnu_vfscanf(f, "%d %d", &c, &d) != 1 || fscanf(f, "%d", &d) != EOF) {
        return 41;
    }
    return (a == 12 && b == 34 && c == 56 ? 0 : 42) | fclose(f);
}

/* Kernel-side copies between two files. */
static int copy_calls(void)
{
    char src[1100], dst[1100], dst2[1100];
    path_of(src, sizeof src, "src.bin");
    path_of(dst, sizeof dst, "dst.bin");
    path_of(dst2, sizeof dst2, "dst2.bin");
    char buf[1000];
    memset(buf, 'x', sizeof buf);
    const int s = open(src, O_RDWR | O_CREAT | O_TRUNC, 0644);
    const int d = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int d2 = open(dst2, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (s < 0 || d < 0 || d2 < 0 || write(s, buf, sizeof buf) != 1000) {
        return 50;
    }
    off64_t in = 0;
    off_t off = 0;
    if (copy_file_range(s, &in, d, NULL, 1000, 0) != 1000 || sendfile(d2, s, &off, 600) != 600) {
        return 51;
    }
    return close(s) | close(d) | close(d2);
}

/* A file made empty in DIR (0 when it was). */
static int make_file(int dirfd, const char *name)
{
    const int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    return fd < 0 ? 1 : close(fd);
}

/* Renames and removals by name, relative to DIR's descriptor or not. */
static int name_calls(void)
{
    char n1[1100], n2[1100];
    path_of(n1, sizeof n1, "n1");
    path_of(n2, sizeof n2, "n2");
    const int d = open(dir, O_RDONLY | O_DIRECTORY);
    if (d < 0 || make_file(d, "n1") != 0 || rename(n1, n2) != 0 ||
        renameat(d, "n2", d, "n3") != 0 || make_file(d, "n2") != 0 ||
        renameat2(d, "n2", d, "n3", RENAME_NOREPLACE) != -1 || errno != EEXIST) {
        return 70;
    }
    if (mkdirat(d, "sub", 0755) != 0 || unlinkat(d, "n2", 0) != 0 || unlinkat(d, "n3", 0) != 0 ||
        unlinkat(d, "sub", AT_REMOVEDIR) != 0 || unlinkat(d, "n3", 0) != -1 || errno != ENOENT) {
        return 71;
    }
    char tmp[1100];
    path_of(tmp, sizeof tmp, "tmpXXXXXX");
    const int t = mkostemp(tmp, O_CLOEXEC);
    if (t < 0 || write(t, "hello", 5) != 5 || close(t) != 0 || unlink(tmp) != 0) {
        return 72;
    }
    printf("%s\n", tmp);
    return close(d);
}

#define CLOSE_THREADS 4
#define CLOSE_ROUNDS 20000

/* One thread of close_calls: its own file opened, read and closed over and
 * over, by close (even threads) or fdopen + fclose (odd ones). */
static void *close_loop(void *arg)
{
    char path[1100], name[16], buf[8];
    (void)snprintf(name, sizeof name, "close%d.txt", (int)(intptr_t)arg);
    path_of(path, sizeof path, name);
    for (int i = 0; i < CLOSE_ROUNDS; i++) {
        const int fd = open(path, O_RDONLY);
        if (fd < 0 || read(fd, buf, sizeof buf) != 5) {
            return arg;
        }
        FILE *const f = (intptr_t)arg % 2 != 0 ? fdopen(fd, "r") : NULL;
        if (f != NULL ? fclose(f) != 0 : close(fd) != 0) {
            return arg;
        }
    }
    return NULL;
}

/* Threads that close descriptors while others open: every thread's calls
 * must name its own file (a close cleared the number's name after the
 * number was reused by another thread's open). */
static int close_calls(void)
{
    pthread_t th[CLOSE_THREADS];
    for (int k = 0; k < CLOSE_THREADS; k++) {
        char path[1100], name[16];
        (void)snprintf(name, sizeof name, "close%d.txt", k);
        path_of(path, sizeof path, name);
        FILE *const f = fopen(path, "w");
        if (f == NULL || fputs("hello", f) < 0 || fclose(f) != 0) {
            return 90;
        }
    }
    for (intptr_t k = 0; k < CLOSE_THREADS; k++) {
        if (pthread_create(&th[k], NULL, close_loop, (void *)k) != 0) {
            return 91;
        }
    }
    int failed = 0;
    for (int k = 0; k < CLOSE_THREADS; k++) {
        void *res;
        failed += pthread_join(th[k], &res) != 0 || res != NULL;
    }
    return failed != 0 ? 92 : 0;
}

/* The position of a stream by each of ftell's names. */
static int tell_calls(void)
{
    char path[1100];
    path_of(path, sizeof path, "tell.txt");
    FILE *const f = fopen(path, "w+");
    if (f == NULL || fputs("hello", f) < 0 || ftell(f) != 5 || fseeko(f, 2, SEEK_SET) != 0 ||
        ftello(f) != 2 || ftello64(f) != 2) {
        return 80;
    }
    return fclose(f);
}

static void *late_writer(void *unused)
{
    (void)unused;
    char path[1100];
    path_of(path, sizeof path, "pexit.dat");
    (void)usleep(100000); /* main has ended by now */
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < 5 && fd >= 0; i++) {
        (void)!write(fd, "p", 1);
    }
    (void)close(fd);
    return NULL;
}

/* The process ends when its last thread does: exit status 0. */
static int pexit_calls(void)
{
    pthread_t th;
    if (pthread_create(&th, NULL, late_writer, NULL) != 0) {
        return 90;
    }
    pthread_exit(NULL);
}

static int spin_fd = -1;
static volatile int spin_stop;

static void *spin_main(void *unused)
{
    (void)unused;
    char buf[16] = {0};
    while (!spin_stop) {
        if (pwrite(spin_fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
            return (void *)1;
        }
    }
    return NULL;
}

/* One fork: the child appends a byte and ends; 0 when it did. */
static int fork_one(const char *child_path)
{
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(child_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        _exit(fd >= 0 && write(fd, "c", 1) == 1 && close(fd) == 0 ? 0 : 1);
    }
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* Forks while other threads record calls (a fork once deadlocked with a
 * thread appending under the tracer's lock). */
static int fork_calls(void)
{
    char path[1100], child[1100];
    path_of(path, sizeof path, "spin.dat");
    path_of(child, sizeof child, "child.dat");
    spin_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    pthread_t th[2];
    if (spin_fd < 0 || pthread_create(&th[0], NULL, spin_main, NULL) != 0 ||
        pthread_create(&th[1], NULL, spin_main, NULL) != 0) {
        return 60;
    }
    int failed = 0;
    for (int i = 0; i < 200; i++) {
        failed += fork_one(child);
    }
    spin_stop = 1;
    void *res[2];
    (void)pthread_join(th[0], &res[0]);
    (void)pthread_join(th[1], &res[1]);
    return failed != 0 || res[0] != NULL || res[1] != NULL ? 61 : close(spin_fd);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        (void)fprintf(stderr, "usage: trace_prog calls|crash|wait|pipes|scanf|copy|names|tell|"
                              "pexit|forks|closes DIR | exit|_exit|raise|kill N\n");
        return 2;
    }
    const char *mode = argv[1];
    (void)snprintf(dir, sizeof dir, "%s", argv[2]);
    if (strcmp(mode, "exit") == 0 || strcmp(mode, "_exit") == 0) {
        (void)snprintf(dir, sizeof dir, "%s", ".");
        const int n = atoi(argv[2]);
        struct stat st;
        (void)stat(".", &st);
        fflush(stdout);
        if (mode[0] == '_') {
            _exit(n);
        }
        exit(n);
    }
    if (strcmp(mode, "raise") == 0 || strcmp(mode, "kill") == 0) {
        struct stat st;
        (void)stat(".", &st);
        const int sig = atoi(argv[2]);
        (void)(mode[0] == 'r' ? raise(sig) : kill(getpid(), sig));
        return 62;
    }
    if (strcmp(mode, "pipes") == 0) {
        return pipe_calls();
    }
    if (strcmp(mode, "scanf") == 0) {
        return scanf_calls();
    }
    if (strcmp(mode, "copy") == 0) {
        return copy_calls();
    }
    if (strcmp(mode, "names") == 0) {
        return name_calls();
    }
    if (strcmp(mode, "tell") == 0) {
        return tell_calls();
    }
    if (strcmp(mode, "closes") == 0) {
        return close_calls();
    }
    if (strcmp(mode, "pexit") == 0) {
        return pexit_calls();
    }
    if (strcmp(mode, "forks") == 0) {
        return fork_calls();
    }
    const int rc = calls(strcmp(mode, "calls") == 0);
    if (rc != 0 || strcmp(mode, "calls") == 0) {
        return rc;
    }
    wait_for_go();
    if (strcmp(mode, "crash") == 0) {
        volatile int *volatile nowhere = NULL; /* a real SIGSEGV, not a compiler trap */
        *nowhere = 1;
    }
    return 0;
}
