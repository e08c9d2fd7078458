// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_floor: test-only kernel ping-pong, the limit row of make bench.
 *
 * Writing "<ibdev> <iterations> <size>" to /sys/kernel/debug/ib_async_floor/run
 * connects two RC QPs of that device to each other over port 1 and runs
 * between them what perftest's ib_send_lat and ib_write_lat run between two
 * processes: SENDs answered by SENDs, then RDMA WRITEs answered by RDMA
 * WRITEs whose last byte the receiver polls. Everything happens in the
 * writing task, busy-polling: no system call, no user space, no completion
 * handler, so what it measures is what the device itself costs a message,
 * the least any stack above it can reach. The write returns when both
 * ping-pongs are done; /sys/kernel/debug/ib_async_floor/result then says,
 * per test, the typical (median) and the 99.9th percentile one-way latency,
 * half a round trip as perftest reports it.
 *
 * Never needed in production: bench/bench.sh prints these figures under
 * perftest's, on the same device, with the same iterations and size.
 */

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define FLOOR_CMD_MAX		128
#define FLOOR_MAX_ITERS		1000000U
#define FLOOR_PORT		1
/* Work requests each queue holds; a ping-pong has one or two in flight. */
#define FLOOR_DEPTH		16
/*
 * perftest's default inline size for RC latency tests (220 bytes for
 * WRITE, 236 for SEND): its 64-byte rows are inline, so are these.
 */
#define FLOOR_MAX_INLINE	220
/* A message that has not arrived by then never will (a broken device). */
#define FLOOR_TIMEOUT_MS	5000
#define FLOOR_POLL_BATCH	4
#define FLOOR_WR_SEND		1
#define FLOOR_WR_RECV		2
#define FLOOR_RESULT_MAX	256

/* One end of the ping-pong: a QP with its own CQ and buffers. */
struct floor_side {
	struct ib_cq *cq;
	struct ib_qp *qp;
	/* the peer's RDMA WRITEs land in rx, registered for them */
	struct ib_mr *mr;
	void *rx;
	struct scatterlist rx_sg;
	bool rx_mapped;
	/* what this side sends or writes */
	void *tx;
	u64 tx_dma;
	bool tx_mapped;
	/* work requests posted and completions reaped, per kind */
	u64 sends_posted;
	u64 sends_done;
	u64 recvs_done;
};

struct floor_run {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_port_attr pattr;
	struct floor_side side[2];
	u32 iters;
	u32 size;
	bool inline_data;
	/* each round trip, nanoseconds */
	u64 *rtt;
};

static struct dentry *floor_dir;
/* One run at a time; it also guards the result. */
static DEFINE_MUTEX(floor_lock);
static char floor_result_text[FLOOR_RESULT_MAX];

/*
 * ib_device_get_by_name() is not exported to modules since 7.0. A client
 * registered for the lookup alone is shown every registered device, and
 * takes a reference on the one named. Its add() refuses every device, so
 * the client holds none and unregisters without a remove() call; the
 * reference keeps the device registered until the run's ib_device_put().
 */
static struct {
	/* add() also runs for devices registering meanwhile, maybe two at once */
	struct mutex lock;
	const char *name;
	struct ib_device *found;
} floor_lookup = {
	.lock = __MUTEX_INITIALIZER(floor_lookup.lock),
};

static int floor_lookup_add(struct ib_device *ibdev)
{
	mutex_lock(&floor_lookup.lock);
	if (!floor_lookup.found &&
	    !strcmp(dev_name(&ibdev->dev), floor_lookup.name) &&
	    ib_device_try_get(ibdev))
		floor_lookup.found = ibdev;
	mutex_unlock(&floor_lookup.lock);
	return -EOPNOTSUPP;
}

static struct ib_client floor_lookup_client = {
	.name	= "ib_async_floor",
	.add	= floor_lookup_add,
};

/* Called under floor_lock, which keeps lookups one at a time. */
static struct ib_device *floor_get_device(const char *name)
{
	floor_lookup.name = name;
	floor_lookup.found = NULL;
	if (ib_register_client(&floor_lookup_client))
		return NULL;
	ib_unregister_client(&floor_lookup_client);
	return floor_lookup.found;
}

/*
 * The port's RoCE v2 GID of an IPv4 address if it has one (what the test
 * bed hands perftest as -x), else its first RoCE v2 GID, with a reference
 * the caller puts.
 */
static const struct ib_gid_attr *floor_roce_gid(struct floor_run *run)
{
	const struct ib_gid_attr *attr, *best = NULL;
	u32 i;

	for (i = 0; i < run->pattr.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(run->ibdev, FLOOR_PORT, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
			rdma_put_gid_attr(attr);
			continue;
		}
		if (ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw)) {
			if (best)
				rdma_put_gid_attr(best);
			return attr;
		}
		if (best)
			rdma_put_gid_attr(attr);
		else
			best = attr;
	}
	return best ? best : ERR_PTR(-ENOENT);
}

/*
 * The path to the port itself: on RoCE the GRH of floor_roce_gid() as source
 * and destination and the GID's own MAC, as ib_modify_qp() wants it filled
 * in by kernel callers (no address resolution, which could wait for the
 * address to leave its tentative state); on InfiniBand the port's LID.
 */
static int floor_self_av(struct floor_run *run, struct rdma_ah_attr *ah)
{
	const struct ib_gid_attr *gattr;
	struct net_device *ndev;
	union ib_gid gid;
	int ret = 0;

	ah->type = rdma_ah_find_type(run->ibdev, FLOOR_PORT);
	rdma_ah_set_port_num(ah, FLOOR_PORT);
	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE) {
		rdma_ah_set_dlid(ah, run->pattr.lid);
		return 0;
	}
	gattr = floor_roce_gid(run);
	if (IS_ERR(gattr))
		return PTR_ERR(gattr);
	gid = gattr->gid;
	rdma_ah_set_grh(ah, &gid, 0, gattr->index, 1, 0);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(gattr);
	if (IS_ERR(ndev))
		ret = PTR_ERR(ndev);
	else
		ether_addr_copy(ah->roce.dmac, ndev->dev_addr);
	rcu_read_unlock();
	rdma_put_gid_attr(gattr);
	return ret;
}

/* INIT, RTR and RTS towards @peer, as perftest moves its QPs. */
static int floor_connect(struct floor_run *run, struct floor_side *s,
			 struct floor_side *peer)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = FLOOR_PORT,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = run->pattr.active_mtu;
	attr.dest_qp_num = peer->qp->qp_num;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	ret = floor_self_av(run, &attr.ah_attr);
	if (ret)
		return ret;
	ret = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/*
 * Between two polls that found nothing: give the CPU to whoever the
 * device's own work waits for (rxe's tasks run in softirq or workqueue
 * context), and give up on a device that stopped answering or a writer
 * that was killed.
 */
static int floor_spin(unsigned long deadline)
{
	if (time_after(jiffies, deadline))
		return -ETIMEDOUT;
	if (fatal_signal_pending(current))
		return -EINTR;
	cond_resched();
	return 0;
}

/* Count what @s's CQ holds. Returns how many, or -errno. */
static int floor_reap(struct floor_side *s)
{
	struct ib_wc wc[FLOOR_POLL_BATCH];
	int i, n;

	n = ib_poll_cq(s->cq, ARRAY_SIZE(wc), wc);
	for (i = 0; i < n; i++) {
		if (wc[i].status != IB_WC_SUCCESS)
			return -EIO;
		if (wc[i].wr_id == FLOOR_WR_RECV)
			s->recvs_done++;
		else
			s->sends_done++;
	}
	return n;
}

/* Busy-poll @s's CQ until *@done (one of its counters) reaches @want. */
static int floor_wait_cq(struct floor_side *s, const u64 *done, u64 want)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(FLOOR_TIMEOUT_MS);
	int ret;

	while (*done < want) {
		ret = floor_reap(s);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		ret = floor_spin(deadline);
		if (ret)
			return ret;
	}
	return 0;
}

static int floor_post_recv(struct floor_run *run, struct floor_side *s)
{
	struct ib_sge sge = {
		.addr = sg_dma_address(&s->rx_sg),
		.length = run->size,
		.lkey = run->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = FLOOR_WR_RECV,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(s->qp, &wr, NULL);
}

/*
 * Post @s's tx to @peer: a SEND, or an RDMA WRITE into @peer's rx. Every
 * request is signaled and reaped while waiting, so the send queue never
 * fills with requests whose slots only a later completion would free.
 */
static int floor_post_send(struct floor_run *run, struct floor_side *s,
			   struct floor_side *peer, enum ib_wr_opcode opcode)
{
	struct ib_sge sge = {
		.addr = s->tx_dma,
		.length = run->size,
		.lkey = run->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = FLOOR_WR_SEND,
			.opcode = opcode,
			.sg_list = &sge,
			.num_sge = 1,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	int ret;

	ret = floor_wait_cq(s, &s->sends_done,
			    s->sends_posted > FLOOR_DEPTH - 1 ?
			    s->sends_posted - (FLOOR_DEPTH - 1) : 0);
	if (ret)
		return ret;
	if (run->inline_data) {
		/* drivers copy inline data from its kernel address */
		wr.wr.send_flags |= IB_SEND_INLINE;
		sge.addr = (uintptr_t)s->tx;
	} else {
		ib_dma_sync_single_for_device(run->ibdev, s->tx_dma, run->size,
					      DMA_TO_DEVICE);
	}
	if (opcode == IB_WR_RDMA_WRITE) {
		wr.remote_addr = peer->mr->iova;
		wr.rkey = peer->mr->rkey;
	}
	/*
	 * rxe (6.1) hands a kernel QP's send to a tasklet: with bottom halves
	 * off around the post, it runs at local_bh_enable(), in this task,
	 * rather than when ksoftirqd next gets the CPU this task is spinning
	 * on. ib_async posts the same way; a floor that waited would not be one.
	 */
	local_bh_disable();
	ret = ib_post_send(s->qp, &wr.wr, NULL);
	local_bh_enable();
	if (!ret)
		s->sends_posted++;
	return ret;
}

/* Busy-poll @s's rx until its last byte is @mark, reaping sends meanwhile. */
static int floor_wait_mark(struct floor_run *run, struct floor_side *s,
			   u8 mark)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(FLOOR_TIMEOUT_MS);
	u8 *last = (u8 *)s->rx + run->size - 1;
	int ret;

	for (;;) {
		ib_dma_sync_single_for_cpu(run->ibdev,
					   sg_dma_address(&s->rx_sg),
					   run->size, DMA_FROM_DEVICE);
		if (READ_ONCE(*last) == mark)
			return 0;
		ret = floor_reap(s);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		ret = floor_spin(deadline);
		if (ret)
			return ret;
	}
}

/*
 * Half a round trip: @from sends message @i to @to, which takes it as
 * perftest's peer does: a SEND's receive completion, after which it posts
 * the receive again, or the last byte of a WRITE changing to the mark of
 * the message (never the previous one's).
 */
static int floor_half(struct floor_run *run, struct floor_side *from,
		      struct floor_side *to, bool write, u32 i)
{
	u8 mark = i + 1;
	int ret;

	((u8 *)from->tx)[run->size - 1] = mark;
	ret = floor_post_send(run, from, to,
			      write ? IB_WR_RDMA_WRITE : IB_WR_SEND);
	if (ret)
		return ret;
	if (write)
		return floor_wait_mark(run, to, mark);
	ret = floor_wait_cq(to, &to->recvs_done, to->recvs_done + 1);
	return ret ? ret : floor_post_recv(run, to);
}

/*
 * @iters round trips, each timed from the post that starts it to the post
 * that starts the next, as perftest times them: the reply taken and the
 * receive posted again are in it.
 */
static int floor_pingpong(struct floor_run *run, bool write)
{
	struct floor_side *a = &run->side[0], *b = &run->side[1];
	u64 t0, t;
	int ret;
	u32 i;

	t0 = ktime_get_ns();
	for (i = 0; i < run->iters; i++) {
		ret = floor_half(run, a, b, write, i);
		if (!ret)
			ret = floor_half(run, b, a, write, i);
		if (ret)
			return ret;
		t = ktime_get_ns();
		run->rtt[i] = t - t0;
		t0 = t;
	}
	return 0;
}

/*
 * Make @s's rx writable by the peer: a fast registration work request, as
 * kernel ULPs register memory, so that no global rkey is needed.
 */
static int floor_register_rx(struct floor_run *run, struct floor_side *s)
{
	struct ib_reg_wr wr = {
		.wr = {
			.wr_id = FLOOR_WR_SEND,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	int ret;

	s->mr = ib_alloc_mr(run->pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(s->mr)) {
		ret = PTR_ERR(s->mr);
		s->mr = NULL;
		return ret;
	}
	ret = ib_map_mr_sg(s->mr, &s->rx_sg, 1, NULL, PAGE_SIZE);
	if (ret != 1)
		return ret < 0 ? ret : -EINVAL;
	wr.mr = s->mr;
	wr.key = s->mr->rkey;
	ret = ib_post_send(s->qp, &wr.wr, NULL);
	if (ret)
		return ret;
	s->sends_posted++;
	return floor_wait_cq(s, &s->sends_done, s->sends_posted);
}

/* A page each for rx and tx (the MR then needs one page), mapped. */
static int floor_side_buffers(struct floor_run *run, struct floor_side *s)
{
	s->rx = (void *)get_zeroed_page(GFP_KERNEL);
	s->tx = (void *)get_zeroed_page(GFP_KERNEL);
	if (!s->rx || !s->tx)
		return -ENOMEM;
	sg_init_one(&s->rx_sg, s->rx, run->size);
	if (!ib_dma_map_sg(run->ibdev, &s->rx_sg, 1, DMA_FROM_DEVICE))
		return -ENOMEM;
	s->rx_mapped = true;
	s->tx_dma = ib_dma_map_single(run->ibdev, s->tx, run->size,
				      DMA_TO_DEVICE);
	if (ib_dma_mapping_error(run->ibdev, s->tx_dma))
		return -ENOMEM;
	s->tx_mapped = true;
	return 0;
}

static int floor_side_create(struct floor_run *run, struct floor_side *s)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 2 * FLOOR_DEPTH };
	struct ib_qp_init_attr init = {
		.cap = {
			.max_send_wr = FLOOR_DEPTH,
			.max_recv_wr = FLOOR_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = run->inline_data ? run->size : 0,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret;

	ret = floor_side_buffers(run, s);
	if (ret)
		return ret;
	/* no completion handler: the CQ is only ever polled, never armed */
	s->cq = ib_create_cq(run->ibdev, NULL, NULL, NULL, &cq_attr);
	if (IS_ERR(s->cq)) {
		ret = PTR_ERR(s->cq);
		s->cq = NULL;
		return ret;
	}
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ib_create_qp(run->pd, &init);
	if (IS_ERR(s->qp)) {
		ret = PTR_ERR(s->qp);
		s->qp = NULL;
		return ret;
	}
	return 0;
}

static void floor_side_destroy(struct floor_run *run, struct floor_side *s)
{
	if (s->qp)
		ib_destroy_qp(s->qp);
	if (s->mr)
		ib_dereg_mr(s->mr);
	if (s->cq)
		ib_destroy_cq(s->cq);
	if (s->tx_mapped)
		ib_dma_unmap_single(run->ibdev, s->tx_dma, run->size,
				    DMA_TO_DEVICE);
	if (s->rx_mapped)
		ib_dma_unmap_sg(run->ibdev, &s->rx_sg, 1, DMA_FROM_DEVICE);
	free_page((unsigned long)s->tx);
	free_page((unsigned long)s->rx);
}

/* Both sides made, connected, their receives posted and rx registered. */
static int floor_setup(struct floor_run *run)
{
	struct floor_side *a = &run->side[0], *b = &run->side[1];
	int ret, i, j;

	ret = ib_query_port(run->ibdev, FLOOR_PORT, &run->pattr);
	if (ret)
		return ret;
	run->pd = ib_alloc_pd(run->ibdev, 0);
	if (IS_ERR(run->pd)) {
		ret = PTR_ERR(run->pd);
		run->pd = NULL;
		return ret;
	}
	for (i = 0; i < 2; i++) {
		ret = floor_side_create(run, &run->side[i]);
		if (ret)
			return ret;
	}
	ret = floor_connect(run, a, b);
	if (!ret)
		ret = floor_connect(run, b, a);
	for (i = 0; i < 2 && !ret; i++) {
		/* a SEND must find a receive posted, or it is NAKed */
		for (j = 0; j < FLOOR_DEPTH && !ret; j++)
			ret = floor_post_recv(run, &run->side[i]);
		if (!ret)
			ret = floor_register_rx(run, &run->side[i]);
	}
	return ret;
}

static void floor_teardown(struct floor_run *run)
{
	int i;

	for (i = 0; i < 2; i++)
		floor_side_destroy(run, &run->side[i]);
	if (run->pd)
		ib_dealloc_pd(run->pd);
}

static int floor_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * One result line: perftest's typical (the median; of an even count the
 * mean of the middle two) and 99.9th percentile of the round trips, halved
 * into one-way latency, in microseconds with two decimals.
 */
static void floor_report(struct floor_run *run, const char *test)
{
	size_t len = strlen(floor_result_text);
	u32 n = run->iters;
	u64 typ, p999;

	sort(run->rtt, n, sizeof(*run->rtt), floor_cmp_u64, NULL);
	typ = n % 2 ? 2 * run->rtt[n / 2] : run->rtt[n / 2 - 1] + run->rtt[n / 2];
	p999 = 2 * run->rtt[DIV_ROUND_UP(n * 999ULL, 1000) - 1];
	/* hundredths of a microsecond: ns / 10, halved (one way), halved again */
	typ = DIV_ROUND_CLOSEST_ULL(typ, 40);
	p999 = DIV_ROUND_CLOSEST_ULL(p999, 40);
	scnprintf(floor_result_text + len, sizeof(floor_result_text) - len,
		  "floor %s typical_us=%llu.%02llu p999_us=%llu.%02llu iterations=%u size=%u\n",
		  test, typ / 100, typ % 100, p999 / 100, p999 % 100, n,
		  run->size);
}

static int floor_measure(struct floor_run *run)
{
	int ret;

	run->inline_data = run->size <= FLOOR_MAX_INLINE;
	run->rtt = kvcalloc(run->iters, sizeof(*run->rtt), GFP_KERNEL);
	if (!run->rtt)
		return -ENOMEM;
	ret = floor_setup(run);
	if (!ret)
		ret = floor_pingpong(run, false);
	if (!ret) {
		floor_report(run, "send_lat");
		ret = floor_pingpong(run, true);
	}
	if (!ret)
		floor_report(run, "write_lat");
	floor_teardown(run);
	kvfree(run->rtt);
	return ret;
}

static ssize_t floor_run_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char name[IB_DEVICE_NAME_MAX], iters_str[16], size_str[16], extra;
	struct floor_run run = {};
	char *buf;
	int ret;

	if (!len || len >= FLOOR_CMD_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = sscanf(buf, "%63s %15s %15s %c", name, iters_str, size_str,
		     &extra);
	kfree(buf);
	/* kstrto*() rather than %u: they reject signs and overflow */
	if (ret != 3 || kstrtou32(iters_str, 0, &run.iters) ||
	    kstrtou32(size_str, 0, &run.size))
		return -EINVAL;
	if (!run.iters || run.iters > FLOOR_MAX_ITERS || !run.size ||
	    run.size > PAGE_SIZE)
		return -EINVAL;

	ret = mutex_lock_interruptible(&floor_lock);
	if (ret)
		return ret;
	/* a failed run leaves no result behind to be mistaken for its own */
	floor_result_text[0] = '\0';
	run.ibdev = floor_get_device(name);
	if (!run.ibdev) {
		ret = -ENODEV;
	} else {
		if (!rdma_is_port_valid(run.ibdev, FLOOR_PORT))
			ret = -EINVAL;
		else
			ret = floor_measure(&run);
		ib_device_put(run.ibdev);
	}
	if (ret)
		floor_result_text[0] = '\0';
	mutex_unlock(&floor_lock);
	return ret ? ret : len;
}

static const struct file_operations floor_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = floor_run_write,
};

static int floor_result_show(struct seq_file *m, void *unused)
{
	int ret = mutex_lock_interruptible(&floor_lock);

	if (ret)
		return ret;
	seq_puts(m, floor_result_text);
	mutex_unlock(&floor_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(floor_result);

static int __init ib_async_floor_init(void)
{
	floor_dir = debugfs_create_dir("ib_async_floor", NULL);
	debugfs_create_file("run", 0200, floor_dir, NULL, &floor_run_fops);
	debugfs_create_file("result", 0444, floor_dir, NULL,
			    &floor_result_fops);
	return 0;
}

static void __exit ib_async_floor_exit(void)
{
	/* no run is under way once the files are gone */
	debugfs_remove_recursive(floor_dir);
}

module_init(ib_async_floor_init);
module_exit(ib_async_floor_exit);

MODULE_DESCRIPTION("Test-only kernel RC ping-pong: the latency floor of make bench");
MODULE_LICENSE("GPL");
