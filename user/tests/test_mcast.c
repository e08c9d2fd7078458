// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_attach_mcast() and ibv_detach_mcast() over the shim: what reaches
 * the kernel (ATTACH_MCAST, DETACH_MCAST: the QP's handle, the group's
 * GID and LID) and what the program sees of the kernel's answer, as
 * libibverbs reports it (the error returned and in errno). A module
 * without the commands answers ENOTTY, which reads as EOPNOTSUPP, as a
 * device without multicast. A fake kernel keeps each argument; the test
 * reads them back.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fake_ioctl.h"
#include "fake_tree.h"
#include "tap.h"

static struct ib_async_mcast sent;
static unsigned long sent_req;
static int answer;

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	if (req == IB_ASYNC_IOC_ATTACH_MCAST ||
	    req == IB_ASYNC_IOC_DETACH_MCAST) {
		memcpy(&sent, arg, sizeof(sent));
		sent_req = req;
		if (answer) {
			errno = answer;
			return -1;
		}
		return 0;
	}
	return FAKE_IOCTL_PASS;
}

int main(void)
{
	union ibv_gid mgid = { .raw = { 0xff, 0x0e, [10] = 0xff, [11] = 0xff,
					239, 1, 1, 7 } };
	struct ft_fake0 ft;
	struct ibv_context *ctx;
	struct ibv_qp qp;
	int ret;

	if (ft_fake0_setup(&ft))
		return OK(0, "fake tree"), tap_done();
	ctx = ft_fake0_open(&ft);
	if (!OK(ctx != NULL, "open fake0"))
		return tap_done();
	memset(&qp, 0, sizeof(qp));
	qp.context = ctx;
	qp.handle = 9;
	qp.qp_type = IBV_QPT_UD;

	ret = ibv_attach_mcast(&qp, &mgid, 0xc001);
	OK(ret == 0 && sent_req == IB_ASYNC_IOC_ATTACH_MCAST,
	   "ibv_attach_mcast: 0, one ATTACH_MCAST (%d)", ret);
	OK(sent.argsz == sizeof(sent) && sent.qp_handle == 9 &&
	   sent.lid == 0xc001 && !sent.flags && !sent.reserved &&
	   !memcmp(sent.gid, mgid.raw, 16),
	   "ATTACH_MCAST carries the QP, the LID and the GID (%u, %#x)",
	   sent.qp_handle, sent.lid);
	ret = ibv_detach_mcast(&qp, &mgid, 0xc001);
	OK(ret == 0 && sent_req == IB_ASYNC_IOC_DETACH_MCAST &&
	   sent.qp_handle == 9 && !memcmp(sent.gid, mgid.raw, 16),
	   "ibv_detach_mcast: 0, one DETACH_MCAST for the same group (%d)",
	   ret);

	answer = EINVAL;
	errno = 0;
	ret = ibv_detach_mcast(&qp, &mgid, 0xc001);
	OK(ret == EINVAL && errno == EINVAL,
	   "the kernel's EINVAL: returned and in errno (%d, %d)", ret, errno);
	answer = ENOTTY;
	errno = 0;
	ret = ibv_attach_mcast(&qp, &mgid, 0);
	OK(ret == EOPNOTSUPP && errno == EOPNOTSUPP,
	   "a module without the command: EOPNOTSUPP (%d, %d)", ret, errno);

	ibv_close_device(ctx);
	ft_fake0_teardown(&ft);
	return tap_done();
}
