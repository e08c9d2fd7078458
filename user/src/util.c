// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* Path, sysfs and descriptor helpers. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibasync.h"

static const char *test_root(void)
{
	/* secure_getenv: a setuid program must not be steerable by a hook */
	const char *root = secure_getenv(IBASYNC_TEST_ROOT_ENV);

	return (root && *root) ? root : "";
}

IBASYNC_EXPORT const char *ibasync_root_dir(void)
{
	return test_root();
}

/* Paths lead into a fake tree: the kernel's other interfaces do not. */
bool ibasync_test_root(void)
{
	return *test_root() != '\0';
}

/*
 * Format an absolute path below the (test) root into buf. Returns 0, or -1
 * with errno ENAMETOOLONG when it does not fit: a truncated path could name
 * a different file.
 */
int ibasync_path(char *buf, size_t len, const char *fmt, ...)
{
	size_t root_len;
	va_list ap;
	int n;

	root_len = strlen(test_root());
	if (root_len >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, test_root(), root_len);

	va_start(ap, fmt);
	n = vsnprintf(buf + root_len, len - root_len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - root_len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Read a small sysfs attribute, trailing newline stripped. Returns the
 * length, or -1 with errno set. Attributes longer than the buffer are an
 * error rather than silently cut.
 */
int ibasync_read_attr(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -1;
	if ((size_t)n == len) {
		errno = EOVERFLOW;
		return -1;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	return (int)n;
}

/*
 * Strict decimal parser: digits only (no sign, space or suffix), value in
 * 0..max. Returns 0, or -1 with errno EINVAL/ERANGE.
 */
int ibasync_parse_uint(const char *s, unsigned long long max,
		       unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || v > max) {
		errno = ERANGE;
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * Wait for the fd to become readable, unless it is non-blocking (-1,
 * EAGAIN). Here rather than in events.c: event channels (evchan.c) wait
 * too, and events.c calls evchan.c, which must not call it back.
 */
int ibasync_wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	if (fl & O_NONBLOCK) {
		errno = EAGAIN;
		return -1;
	}
	return poll(&p, 1, -1) < 0 ? -1 : 0;
}

/*
 * A mapped ring was empty and RING_WAIT answered @err (0 or EAGAIN: no
 * record here yet): 0 once the caller may look again (after a wait,
 * unless @nonblock), else -1 with errno: the stream's end as the kernel
 * says it (ENODEV, EIO), EAGAIN, or the wait's error.
 */
int ibasync_ring_wait_more(int fd, int err, bool nonblock)
{
	if (err && err != EAGAIN) {
		errno = err;
		return -1;
	}
	if (nonblock) {
		errno = EAGAIN;
		return -1;
	}
	return ibasync_wait_readable(fd);
}

/*
 * For a read that must not block on a descriptor that may: 0 if @fd has
 * something to say now (records, or an end of stream or error, which the
 * read then returns), else -1 with EAGAIN.
 */
int ibasync_readable_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 0);

	if (n < 0)
		return -1;
	if (n > 0)
		return 0;
	errno = EAGAIN;
	return -1;
}
