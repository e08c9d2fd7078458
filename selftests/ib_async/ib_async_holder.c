// SPDX-License-Identifier: GPL-2.0
/*
 * Helper for ib_async_unplug.sh: a process that holds an ib_async file
 * with objects and an unread affiliated event, waits in one of several
 * ways while its device is removed, and checks the end of its stream.
 *
 *   ib_async_holder MODE     MODE: read | poll | epoll | ioctl
 *
 * Device: IB_ASYNC_IBDEV (default rxe0). Setup: a PD, a CQ and a UD QP
 * moved to SQD, so a SQ_DRAINED record sits unread (on evsrc0, which
 * raises nothing by itself, through its raise file). Prints "ready" and
 * then waits: in a blocking read(), in poll(), in epoll_wait(), or
 * issuing QUERY_PORT ioctls in a loop (a thread mid-ioctl at removal).
 * Once the device is gone it checks what the kernel returns:
 *
 *  - the SQ_DRAINED record, then exactly one DEVICE_FATAL as the last
 *    record (element 0 from removal, the port from a driver's own fatal),
 *    with gap-free sequence numbers;
 *  - then read() fails with ENODEV and poll() reports POLLHUP|POLLERR;
 *  - object commands fail with ENODEV, but DESTROY succeeds, for every
 *    object (QP, CQ, PD: dependency order), and a second DESTROY of the
 *    same handle fails with ENOENT.
 *
 * Prints "ok ..." and exits 0, or "fail: ..." and exits 1.
 */
#define IBA_NO_HARNESS
#include <sys/epoll.h>

#include "lib/iba_verbs.h"
#include "lib/iba_evsrc.h"

#define QP_COOKIE	0x401dULL

static int fail(const char *what, int err)
{
	printf("fail: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static int wait_removal(int fd, const char *mode)
{
	struct ib_async_port_attr pa;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct epoll_event ev = { .events = EPOLLIN };
	int ep, ret;

	if (!strcmp(mode, "poll")) {
		/* the unread record makes fd readable: wait for the hangup */
		p.events = POLLRDHUP;
		do
			ret = poll(&p, 1, -1);
		while (ret >= 0 && !(p.revents & (POLLHUP | POLLERR)));
		return ret < 0 ? -errno : 0;
	}
	if (!strcmp(mode, "epoll")) {
		ep = epoll_create1(0);
		if (ep < 0)
			return -errno;
		ev.events = EPOLLRDHUP;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
			return -errno;
		do
			ret = epoll_wait(ep, &ev, 1, -1);
		while (ret >= 0 && !(ev.events & (EPOLLHUP | EPOLLERR)));
		close(ep);
		return ret < 0 ? -errno : 0;
	}
	if (!strcmp(mode, "ioctl")) {
		do {
			memset(&pa, 0, sizeof(pa));
			pa.argsz = sizeof(pa);
			pa.port_num = 1;
			ret = iba_ioc(fd, IB_ASYNC_IOC_QUERY_PORT, &pa);
		} while (!ret);
		return ret == -ENODEV ? 0 : ret;
	}
	return 0;	/* read: the blocking read below is the wait */
}

int main(int argc, char **argv)
{
	struct ib_async_event ev[16];
	struct ib_async_create_qp qp;
	struct pollfd p;
	struct iba_dev dev;
	uint32_t pd, cq, spare;
	int fd, ret, n = 0, fatal = 0, drained = 0, i;
	ssize_t got;

	if (argc != 2)
		return fail("usage: ib_async_holder read|poll|epoll|ioctl", EINVAL);
	if (iba_find_dev(&dev))
		return fail("no ib_async node", ENODEV);
	fd = open(dev.node, O_RDWR);
	if (fd < 0)
		return fail(dev.node, errno);
	ret = iba_create_pd(fd, &pd);
	if (!ret)
		ret = iba_create_cq(fd, 0, 4, &cq);
	if (!ret)
		ret = iba_create_qp(fd, QP_COOKIE, pd, cq, IB_UVERBS_QPT_UD, &qp);
	if (!ret)
		ret = iba_ud_to_rts(fd, qp.handle);
	if (!ret)
		ret = iba_modify_qp(fd, qp.handle, 4, IB_ASYNC_QP_EN_SQD_ASYNC_NOTIFY,
				&(struct ib_async_qp_attr){ .en_sqd_async_notify = 1 });
	if (!ret && !strncmp(dev.ibdev, "evsrc", 5))
		ret = iba_evsrc_write("raise", "%u qp:%d process",
				  IB_ASYNC_EV_SQ_DRAINED,
				  iba_evsrc_find("qp", qp.qp_num));
	if (ret)
		return fail("objects", ret);
	if (iba_wait_queued(fd, 1, IBA_EVENT_TIMEOUT_MS))
		return fail("no SQ_DRAINED queued", ETIMEDOUT);
	printf("ready %d\n", getpid());
	fflush(stdout);

	ret = wait_removal(fd, argv[1]);
	if (ret)
		return fail("waiting", ret);
	/* everything left, in blocking reads, until the end of the stream */
	for (;;) {
		got = read(fd, ev + n, sizeof(ev) - n * sizeof(ev[0]));
		if (got < 0)
			break;
		n += got / IBA_REC;
		if (n == (int)(sizeof(ev) / sizeof(ev[0])))
			return fail("too many records", E2BIG);
	}
	if (errno != ENODEV)
		return fail("read after the last record", errno);
	for (i = 0; i < n; i++) {
		drained += ev[i].event_type == IB_ASYNC_EV_SQ_DRAINED &&
			   ev[i].element == QP_COOKIE;
		fatal += ev[i].event_type == IB_ASYNC_EV_DEVICE_FATAL;
	}
	if (!n || ev[n - 1].event_type != IB_ASYNC_EV_DEVICE_FATAL ||
	    fatal != 1 || drained < 1 ||
	    iba_seq_continuous(ev, n) != -1) {
		printf("fail: %d records:", n);
		for (i = 0; i < n; i++)
			printf(" %s(seq %llu)", iba_type_str(ev[i].event_type),
			       (unsigned long long)ev[i].seq);
		printf("\n");
		return 1;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 0) != 1 || (p.revents & (POLLHUP | POLLERR)) !=
	    (POLLHUP | POLLERR))
		return fail("poll after the end", EINVAL);
	ret = iba_create_pd(fd, &spare);
	if (ret != -ENODEV)
		return fail("create after removal (want ENODEV)", ret ? ret : EEXIST);
	if ((ret = iba_destroy(fd, IB_ASYNC_OBJ_QP, qp.handle, NULL)) ||
	    (ret = iba_destroy(fd, IB_ASYNC_OBJ_CQ, cq, NULL)) ||
	    (ret = iba_destroy(fd, IB_ASYNC_OBJ_PD, pd, NULL)))
		return fail("destroy after removal", ret);
	ret = iba_destroy(fd, IB_ASYNC_OBJ_QP, qp.handle, NULL);
	if (ret != -ENOENT)
		return fail("second iba_destroy (want ENOENT)", ret ? ret : EEXIST);
	close(fd);
	printf("ok %s: %d records, DEVICE_FATAL last, then ENODEV\n", argv[1], n);
	return 0;
}
