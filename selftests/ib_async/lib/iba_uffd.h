/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory whose first touch waits until the test says so (userfaultfd):
 * how tests hold a command inside its copy to or from user memory, or in
 * a pin, at a point of their choosing.
 */
#ifndef IBA_UFFD_H
#define IBA_UFFD_H

#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <linux/userfaultfd.h>

#include "iba_util.h"

struct iba_stall {
	int uffd;
	void *area;
	size_t len;
};

/*
 * Map @len bytes and register them with a new userfaultfd in @mode,
 * @fill's @n bytes at the start written first. 0 or -errno.
 */
int iba_stall_map(struct iba_stall *s, size_t len, __u64 mode,
		  const void *fill, size_t n);

/*
 * @len bytes whose first touch waits until iba_stall_serve(). 0, or
 * -errno when this kernel has no userfaultfd (the caller skips).
 */
int iba_stall_make(struct iba_stall *s, size_t len);

/*
 * @len bytes holding @fill's @n, then zeros: reads go on, a write waits
 * (see iba_stall_fail()). 0, or -errno when this kernel cannot (skip).
 */
int iba_stall_make_wp(struct iba_stall *s, size_t len,
		      const void *fill, size_t n);

/*
 * Wait up to @ms for a touch to stall on the area: 0, or -ETIMEDOUT when
 * none did (the command under test did not reach its copy).
 */
int iba_stall_wait(struct iba_stall *s, int ms);

/* Fill the stalled pages with zeros: the touch goes on. 0 or -errno. */
int iba_stall_serve(struct iba_stall *s);

/*
 * Make the stalled write fail: the area becomes read-only, then the
 * waiting touch retries and gets EFAULT. 0 or -errno.
 */
int iba_stall_fail(struct iba_stall *s);

/*
 * Let the stalled write go on: the area's write protection is lifted
 * and the waiting touch retries. 0 or -errno.
 */
int iba_stall_unprotect(struct iba_stall *s);

/*
 * A command run in a thread of its own (iba_stalled_run()), its argument
 * in an area that stalls: @ret is 0 or -errno once it returned.
 */
struct iba_stalled_cmd {
	int fd;
	unsigned long cmd;
	void *arg;
	int ret;
	int done;	/* set once @ret is */
};

void *iba_stalled_run(void *p);

/*
 * Run @c's command in a thread (*@th) and wait up to @ms for it to return,
 * how long it took in *@took: 0 once it did, -ETIMEDOUT while it still
 * runs (held up by something; join it once that is released), -errno if
 * the thread could not start.
 */
int iba_cmd_within(struct iba_stalled_cmd *c, pthread_t *th,
		   int ms, uint64_t *took);

/*
 * A read() of a queue into memory that stalls, run as a thread body
 * (iba_stalled_read_run()): how it ended is left in @ret and @err.
 */
struct iba_stalled_read {
	int fd;
	void *buf;
	size_t len;
	ssize_t ret;
	int err;
};

void *iba_stalled_read_run(void *p);

/*
 * Start @r's read() in a thread (*@th) into @s, a new area of a page that
 * stalls on first touch, and wait until the read is stuck in its copy: 0,
 * 1 when this kernel has no userfaultfd (the caller skips), -errno when
 * the read did not get there.
 */
int iba_stall_reader(struct iba_stalled_read *r,
		     struct iba_stall *s, pthread_t *th);

/*
 * Run @c's command in a thread (*@th), its argument @arg's @n bytes on a
 * write-protected page (@s), and wait until it stalls writing its answer
 * back: 0 once it does, 1 when this kernel cannot write-protect (the
 * caller skips), -errno when it did not get there.
 */
int iba_stall_answer(struct iba_stalled_cmd *c,
		     struct iba_stall *s, const void *arg,
		     size_t n, pthread_t *th);

/*
 * Serve @s's stalled read (iba_stall_reader()) and wait for it (@reader)
 * and for the command it held up or not (@cmd) to end: 0, or the first
 * error.
 */
int iba_stall_release(struct iba_stall *s, pthread_t reader,
		      pthread_t cmd);

void iba_stall_free(struct iba_stall *s);

#endif /* IBA_UFFD_H */
