// SPDX-License-Identifier: GPL-2.0
/*
 * The bodies of iba_uffd.h's helpers: memory whose first touch waits
 * (userfaultfd).
 */
#define IBA_NO_HARNESS
#include "iba_uffd.h"

int iba_stall_map(struct iba_stall *s, size_t len, __u64 mode,
		  const void *fill, size_t n)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = mode };
	struct uffdio_writeprotect prot = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	int err;

	s->len = len;
	s->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (s->uffd < 0)
		return -errno;
	s->area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->area == MAP_FAILED) {
		err = -errno;
		close(s->uffd);
		return err;
	}
	/* write protection needs the pages present */
	if (mode == UFFDIO_REGISTER_MODE_WP) {
		memset(s->area, 0, len);
		memcpy(s->area, fill, n);
	}
	reg.range.start = (uintptr_t)s->area;
	reg.range.len = len;
	prot.range = reg.range;
	if (ioctl(s->uffd, UFFDIO_API, &api) ||
	    ioctl(s->uffd, UFFDIO_REGISTER, &reg) ||
	    (mode == UFFDIO_REGISTER_MODE_WP &&
	     ioctl(s->uffd, UFFDIO_WRITEPROTECT, &prot))) {
		err = -errno;
		munmap(s->area, len);
		close(s->uffd);
		return err;
	}
	return 0;
}

int iba_stall_make(struct iba_stall *s, size_t len)
{
	return iba_stall_map(s, len, UFFDIO_REGISTER_MODE_MISSING, NULL, 0);
}

int iba_stall_make_wp(struct iba_stall *s, size_t len,
		      const void *fill, size_t n)
{
	return iba_stall_map(s, len, UFFDIO_REGISTER_MODE_WP, fill, n);
}

int iba_stall_wait(struct iba_stall *s, int ms)
{
	struct pollfd p = { .fd = s->uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, ms) != 1)
		return -ETIMEDOUT;
	if (read(s->uffd, &msg, sizeof(msg)) != sizeof(msg))
		return -errno;
	return msg.event == UFFD_EVENT_PAGEFAULT ? 0 : -EPROTO;
}

int iba_stall_serve(struct iba_stall *s)
{
	struct uffdio_zeropage z = {
		.range = { .start = (uintptr_t)s->area, .len = s->len },
	};

	return ioctl(s->uffd, UFFDIO_ZEROPAGE, &z) ? -errno : 0;
}

int iba_stall_fail(struct iba_stall *s)
{
	struct uffdio_range r = { .start = (uintptr_t)s->area, .len = s->len };

	if (mprotect(s->area, s->len, PROT_READ))
		return -errno;
	return ioctl(s->uffd, UFFDIO_WAKE, &r) ? -errno : 0;
}

int iba_stall_unprotect(struct iba_stall *s)
{
	struct uffdio_writeprotect prot = {
		.range = { .start = (uintptr_t)s->area, .len = s->len },
	};

	/* mode 0: protection off, and the waiting touch woken */
	return ioctl(s->uffd, UFFDIO_WRITEPROTECT, &prot) ? -errno : 0;
}

void *iba_stalled_run(void *p)
{
	struct iba_stalled_cmd *c = p;

	c->ret = ioctl(c->fd, c->cmd, c->arg) ? -errno : 0;
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int iba_cmd_within(struct iba_stalled_cmd *c, pthread_t *th,
		   int ms, uint64_t *took)
{
	uint64_t t0 = iba_now_ms();
	int err;

	*took = 0;
	err = pthread_create(th, NULL, iba_stalled_run, c);
	if (err)
		return -err;
	while (!__atomic_load_n(&c->done, __ATOMIC_ACQUIRE)) {
		if (iba_now_ms() - t0 > (uint64_t)ms) {
			*took = iba_now_ms() - t0;
			return -ETIMEDOUT;
		}
		iba_sleep_ms(5);
	}
	*took = iba_now_ms() - t0;
	return 0;
}

void *iba_stalled_read_run(void *p)
{
	struct iba_stalled_read *r = p;

	r->ret = read(r->fd, r->buf, r->len);
	r->err = errno;
	return NULL;
}

int iba_stall_reader(struct iba_stalled_read *r,
		     struct iba_stall *s, pthread_t *th)
{
	int err;

	if (iba_stall_make(s, sysconf(_SC_PAGESIZE)))
		return 1;
	r->buf = s->area;
	err = pthread_create(th, NULL, iba_stalled_read_run, r);
	if (err)
		return -err;
	return iba_stall_wait(s, IBA_EVENT_TIMEOUT_MS);
}

int iba_stall_answer(struct iba_stalled_cmd *c,
		     struct iba_stall *s, const void *arg,
		     size_t n, pthread_t *th)
{
	int err;

	if (iba_stall_make_wp(s, sysconf(_SC_PAGESIZE), arg, n))
		return 1;
	c->arg = s->area;
	err = pthread_create(th, NULL, iba_stalled_run, c);
	if (err)
		return -err;
	return iba_stall_wait(s, IBA_EVENT_TIMEOUT_MS);
}

int iba_stall_release(struct iba_stall *s, pthread_t reader,
		      pthread_t cmd)
{
	int err = iba_stall_serve(s);

	if (!err)
		err = pthread_join(reader, NULL);
	return err ? err : pthread_join(cmd, NULL);
}

void iba_stall_free(struct iba_stall *s)
{
	close(s->uffd);
	munmap(s->area, s->len);
}
