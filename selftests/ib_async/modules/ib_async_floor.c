// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_floor: test-only kernel ping-pong, the limit row of make bench.
 *
 * Writing "<ibdev> <iterations> <size>" to /sys/kernel/debug/ib_async_floor/run
 * connects two RC QPs of that device to each other over port 1 and runs
 * between them what perftest's ib_send_lat, ib_write_lat and ib_read_lat run
 * between two processes: SENDs answered by SENDs, RDMA WRITEs answered by
 * RDMA WRITEs whose last byte the receiver polls, then RDMA READs of the
 * server's memory, each waited for, the server idle. Client and server are two
 * kernel threads on two CPUs, as the test bed pins perftest's processes,
 * each busy-polling its side: no system call, no user space, no completion
 * handler, so what it measures is what the device itself costs a message,
 * the least any stack above it can reach. The write returns when both
 * tests are done; /sys/kernel/debug/ib_async_floor/result then says, per
 * test, the typical (median) and the 99.9th percentile latency as perftest
 * reports it: half a round trip for SEND and WRITE, a whole one for READ.
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
#include <linux/kthread.h>
#include <linux/sched/clock.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <uapi/linux/sched/types.h>
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
/*
 * Every so many sends one is signaled, as perftest signals every cq_mod-th:
 * its completion frees the send queue's slots of those before it.
 */
#define FLOOR_SIGNAL_EVERY	(FLOOR_DEPTH / 2)
#define FLOOR_WR_SEND		1
#define FLOOR_WR_RECV		2
#define FLOOR_WR_REG		3
#define FLOOR_WR_READ		4
#define FLOOR_RESULT_MAX	512

/*
 * One end of the ping-pong: a QP with its own CQ and buffers, and the
 * thread that drives it, which alone touches the counters while it runs.
 */
struct floor_side {
	struct floor_run *run;
	struct floor_side *peer;
	struct task_struct *task;
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
	/* sends and READs posted; completions reaped, per kind */
	u64 sends_posted;
	u64 reads_posted;
	u64 sends_done;
	u64 recvs_done;
	u64 regs_done;
	u64 reads_done;
};

/* perftest's three latency tests, in the order they run */
enum floor_test {
	FLOOR_SEND,
	FLOOR_WRITE,
	FLOOR_READ,
};

struct floor_run {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_port_attr pattr;
	struct floor_side side[2];
	u32 iters;
	u32 size;
	bool inline_data;
	/* the test under way */
	enum floor_test test;
	/* the threads still running, and the writer waiting for none */
	atomic_t running;
	wait_queue_head_t wq;
	/* set when one side failed or the writer was killed: all stop */
	bool abort;
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
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
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
 * Between two polls that found nothing: give up on a device that stopped
 * answering or when the other side or the writer did, and let others run
 * (floor_thread() made them preempt this thread).
 */
static int floor_spin(struct floor_side *s, unsigned long deadline)
{
	if (READ_ONCE(s->run->abort))
		return -EINTR;
	if (time_after(jiffies, deadline))
		return -ETIMEDOUT;
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
		else if (wc[i].wr_id == FLOOR_WR_REG)
			s->regs_done++;
		else if (wc[i].wr_id == FLOOR_WR_READ)
			s->reads_done++;
		else
			s->sends_done++;
	}
	return n;
}

/* The last byte of @s's rx: the mark of the last WRITE that landed there. */
static u8 floor_rx_mark(struct floor_side *s)
{
	struct floor_run *run = s->run;

	ib_dma_sync_single_for_cpu(run->ibdev, sg_dma_address(&s->rx_sg),
				   run->size, DMA_FROM_DEVICE);
	return READ_ONCE(((u8 *)s->rx)[run->size - 1]);
}

/*
 * Busy-poll @s until what it waits for came: *@done (one of its counters)
 * reaching @want or, with @done NULL, @mark in its rx. Completions are
 * reaped meanwhile either way.
 */
static int floor_wait(struct floor_side *s, const u64 *done, u64 want,
		      u8 mark)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(FLOOR_TIMEOUT_MS);
	int ret;

	while (done ? *done < want : floor_rx_mark(s) != mark) {
		ret = floor_reap(s);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		ret = floor_spin(s, deadline);
		if (ret)
			return ret;
	}
	return 0;
}

static int floor_post_recv(struct floor_side *s)
{
	struct ib_sge sge = {
		.addr = sg_dma_address(&s->rx_sg),
		.length = s->run->size,
		.lkey = s->run->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = FLOOR_WR_RECV,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(s->qp, &wr, NULL);
}

/*
 * rxe (6.1) hands a kernel QP's send to a tasklet: with bottom halves off
 * around the post, it runs at local_bh_enable(), in this thread, rather
 * than when ksoftirqd next gets the CPU this thread spins on. ib_async
 * posts the same way; a floor that waited would not be one.
 */
static int floor_post_send(struct floor_side *s, const struct ib_send_wr *wr)
{
	int ret;

	local_bh_disable();
	ret = ib_post_send(s->qp, wr, NULL);
	local_bh_enable();
	return ret;
}

/*
 * Message @i from @s to its peer: a SEND, or an RDMA WRITE into the peer's
 * rx, whose last byte says which message it is (never the previous one's
 * mark). Signaled completions are reaped while waiting for messages.
 */
static int floor_send(struct floor_side *s, u32 i)
{
	struct floor_run *run = s->run;
	struct ib_sge sge = {
		.addr = s->tx_dma,
		.length = run->size,
		.lkey = run->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = FLOOR_WR_SEND,
			.opcode = run->test == FLOOR_WRITE ? IB_WR_RDMA_WRITE :
							     IB_WR_SEND,
			.sg_list = &sge,
			.num_sge = 1,
		},
	};
	u64 n = s->sends_posted;
	int ret;

	/* room for one more: the sends a signaled completion freed */
	if (n + 1 > FLOOR_DEPTH) {
		ret = floor_wait(s, &s->sends_done,
				 DIV_ROUND_UP(n + 1 - FLOOR_DEPTH,
					      FLOOR_SIGNAL_EVERY), 0);
		if (ret)
			return ret;
	}
	if (n % FLOOR_SIGNAL_EVERY == FLOOR_SIGNAL_EVERY - 1)
		wr.wr.send_flags |= IB_SEND_SIGNALED;
	((u8 *)s->tx)[run->size - 1] = i + 1;
	if (run->inline_data) {
		/* drivers copy inline data from its kernel address */
		wr.wr.send_flags |= IB_SEND_INLINE;
		sge.addr = (uintptr_t)s->tx;
	} else {
		ib_dma_sync_single_for_device(run->ibdev, s->tx_dma, run->size,
					      DMA_TO_DEVICE);
	}
	if (run->test == FLOOR_WRITE) {
		wr.remote_addr = s->peer->mr->iova;
		wr.rkey = s->peer->mr->rkey;
	}
	ret = floor_post_send(s, &wr.wr);
	if (!ret)
		s->sends_posted++;
	return ret;
}

/*
 * Take message @i at @s as perftest's peer does: a SEND's receive
 * completion, after which the receive is posted again, or the WRITE's
 * mark in the last byte.
 */
static int floor_take(struct floor_side *s, u32 i)
{
	int ret;

	if (s->run->test == FLOOR_WRITE)
		return floor_wait(s, NULL, 0, i + 1);
	ret = floor_wait(s, &s->recvs_done, s->recvs_done + 1, 0);
	return ret ? ret : floor_post_recv(s);
}

/*
 * perftest's ib_read_lat: an RDMA READ of the peer's rx into @s's own, each
 * signalled and waited for before the next is posted.
 */
static int floor_read(struct floor_side *s)
{
	struct floor_run *run = s->run;
	struct ib_sge sge = {
		.addr = sg_dma_address(&s->rx_sg),
		.length = run->size,
		.lkey = run->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = FLOOR_WR_READ,
			.opcode = IB_WR_RDMA_READ,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.remote_addr = s->peer->mr->iova,
		.rkey = s->peer->mr->rkey,
	};
	int ret;

	ret = floor_post_send(s, &wr.wr);
	if (ret)
		return ret;
	s->reads_posted++;
	return floor_wait(s, &s->reads_done, s->reads_posted, 0);
}

/*
 * perftest's client: each round trip timed from the post that starts it to
 * the post that starts the next, as perftest times them (the reply taken
 * and the receive posted again are in it); after the last, to the clock
 * read that ends the loop. local_clock() reads this CPU's cycle counter,
 * as perftest reads the TSC of the CPU it is pinned to; ktime_get_ns()
 * would read the clocksource, which a guest may have moved to the emulated
 * HPET, whose every read is an exit to QEMU's device model under its
 * global lock.
 */
static int floor_client(struct floor_side *s)
{
	struct floor_run *run = s->run;
	u64 t0, t;
	int ret;
	u32 i;

	t0 = local_clock();
	for (i = 0; i < run->iters; i++) {
		if (run->test == FLOOR_READ) {
			ret = floor_read(s);
		} else {
			ret = floor_send(s, i);
			if (!ret)
				ret = floor_take(s, i);
		}
		if (ret)
			return ret;
		t = local_clock();
		run->rtt[i] = t - t0;
		t0 = t;
	}
	return 0;
}

/*
 * perftest's server: each message answered as soon as it is taken; READs
 * need nothing of it.
 */
static int floor_server(struct floor_side *s)
{
	int ret;
	u32 i;

	if (s->run->test == FLOOR_READ)
		return 0;
	for (i = 0; i < s->run->iters; i++) {
		ret = floor_take(s, i);
		if (!ret)
			ret = floor_send(s, i);
		if (ret)
			return ret;
	}
	return 0;
}

static int floor_thread(void *data)
{
	/*
	 * SCHED_IDLE: any other task woken on this CPU preempts the thread at
	 * once, and gets the CPU at its next cond_resched(). As an ordinary
	 * task it would wait for the thread's slice to end, a tick or more,
	 * and a message can wait for one of them: from 6.4 on, rxe carries
	 * every send in a worker, which needs a CPU both threads keep busy.
	 */
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_IDLE,
	};
	struct floor_side *s = data;
	struct floor_run *run = s->run;
	int ret;

	ret = sched_setattr_nocheck(current, &attr);
	if (ret)
		goto out;
	ret = s == &run->side[0] ? floor_client(s) : floor_server(s);
out:
	if (ret)
		WRITE_ONCE(run->abort, true);
	if (atomic_dec_and_test(&run->running))
		wake_up(&run->wq);
	/* what kthread_stop() returns to the writer */
	return ret;
}

/*
 * One test, perftest's way: client and server in two threads, each
 * busy-polling its own side, the client on the first online CPU and the
 * server on the second, as the test bed pins perftest's processes. The
 * writer waits, and stops them early if it is killed. On one CPU the two
 * would take turns at the scheduler's tick, milliseconds apart: that is
 * refused rather than measured.
 */
static int floor_pingpong(struct floor_run *run, enum floor_test test)
{
	unsigned int cpu[2];
	int i, ret = 0, tret;

	run->test = test;
	run->abort = false;
	/* a SEND's payload ends in its mark: the WRITEs start from none */
	for (i = 0; i < 2; i++)
		memset(run->side[i].rx, 0, run->size);
	cpu[0] = cpumask_first(cpu_online_mask);
	cpu[1] = cpumask_next(cpu[0], cpu_online_mask);
	if (cpu[1] >= nr_cpu_ids)
		return -EOPNOTSUPP;
	for (i = 0; i < 2; i++) {
		struct floor_side *s = &run->side[i];

		s->task = kthread_create(floor_thread, s, "floor_%s",
					 i ? "server" : "client");
		if (IS_ERR(s->task)) {
			ret = PTR_ERR(s->task);
			s->task = NULL;
			break;
		}
		/* kthread_stop() below may come after the thread's exit */
		get_task_struct(s->task);
		kthread_bind(s->task, cpu[i]);
	}
	atomic_set(&run->running, i);
	if (ret)
		WRITE_ONCE(run->abort, true);
	for (i = 0; i < 2; i++)
		if (run->side[i].task)
			wake_up_process(run->side[i].task);
	if (wait_event_killable(run->wq, !atomic_read(&run->running)))
		WRITE_ONCE(run->abort, true);
	for (i = 0; i < 2; i++) {
		struct floor_side *s = &run->side[i];

		if (!s->task)
			continue;
		tret = kthread_stop(s->task);
		put_task_struct(s->task);
		s->task = NULL;
		/* the first failure, not the other side's -EINTR */
		if (tret && (!ret || ret == -EINTR))
			ret = tret;
	}
	return ret;
}

/*
 * Make @s's rx writable by the peer: a fast registration work request, as
 * kernel ULPs register memory, so that no global rkey is needed.
 */
static int floor_register_rx(struct floor_run *run, struct floor_side *s)
{
	struct ib_reg_wr wr = {
		.wr = {
			.wr_id = FLOOR_WR_REG,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
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
	return ret ? ret : floor_wait(s, &s->regs_done, 1, 0);
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
		run->side[i].run = run;
		run->side[i].peer = &run->side[!i];
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
			ret = floor_post_recv(&run->side[i]);
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
 * mean of the middle two) and 99.9th percentile of the round trips, in
 * microseconds with two decimals: halved into one-way latency, as perftest
 * reports SEND and WRITE, or (@whole) as they are, as it reports READ.
 */
static void floor_report(struct floor_run *run, const char *test, bool whole)
{
	size_t len = strlen(floor_result_text);
	u32 n = run->iters;
	u64 typ, p999;

	sort(run->rtt, n, sizeof(*run->rtt), floor_cmp_u64, NULL);
	typ = n % 2 ? 2 * run->rtt[n / 2] : run->rtt[n / 2 - 1] + run->rtt[n / 2];
	p999 = 2 * run->rtt[DIV_ROUND_UP(n * 999ULL, 1000) - 1];
	/*
	 * Both are twice a round trip here. Hundredths of a microsecond:
	 * ns / 10, halved again, and once more for one way.
	 */
	typ = DIV_ROUND_CLOSEST_ULL(typ, whole ? 20 : 40);
	p999 = DIV_ROUND_CLOSEST_ULL(p999, whole ? 20 : 40);
	scnprintf(floor_result_text + len, sizeof(floor_result_text) - len,
		  "floor %s typical_us=%llu.%02llu p999_us=%llu.%02llu iterations=%u size=%u\n",
		  test, typ / 100, typ % 100, p999 / 100, p999 % 100, n,
		  run->size);
}

/* The three tests on @ibdev, their result lines in floor_result_text. */
static int floor_measure(struct ib_device *ibdev, u32 iters, u32 size)
{
	struct floor_run *run;
	int ret = -ENOMEM;

	/* too large for the stack of a kernel with KASAN */
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->ibdev = ibdev;
	run->iters = iters;
	run->size = size;
	run->inline_data = size <= FLOOR_MAX_INLINE;
	init_waitqueue_head(&run->wq);
	run->rtt = kvcalloc(iters, sizeof(*run->rtt), GFP_KERNEL);
	if (!run->rtt)
		goto out;
	ret = floor_setup(run);
	if (!ret)
		ret = floor_pingpong(run, FLOOR_SEND);
	if (!ret) {
		floor_report(run, "send_lat", false);
		ret = floor_pingpong(run, FLOOR_WRITE);
	}
	if (!ret) {
		floor_report(run, "write_lat", false);
		ret = floor_pingpong(run, FLOOR_READ);
	}
	if (!ret)
		floor_report(run, "read_lat", true);
	floor_teardown(run);
	kvfree(run->rtt);
out:
	kfree(run);
	return ret;
}

static ssize_t floor_run_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char name[IB_DEVICE_NAME_MAX], iters_str[16], size_str[16], extra;
	struct ib_device *ibdev;
	u32 iters, size;
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
	if (ret != 3 || kstrtou32(iters_str, 0, &iters) ||
	    kstrtou32(size_str, 0, &size))
		return -EINVAL;
	if (!iters || iters > FLOOR_MAX_ITERS || !size || size > PAGE_SIZE)
		return -EINVAL;

	ret = mutex_lock_interruptible(&floor_lock);
	if (ret)
		return ret;
	/* a failed run leaves no result behind to be mistaken for its own */
	floor_result_text[0] = '\0';
	ibdev = floor_get_device(name);
	if (!ibdev) {
		ret = -ENODEV;
	} else {
		if (!rdma_is_port_valid(ibdev, FLOOR_PORT))
			ret = -EINVAL;
		else
			ret = floor_measure(ibdev, iters, size);
		ib_device_put(ibdev);
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
