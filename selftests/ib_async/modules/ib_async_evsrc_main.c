// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_evsrc: device registration, ports and module lifetime.
 *
 * Each device is an InfiniBand CA with EVSRC_NPORTS ports, ACTIVE, one GID
 * (fe80::<node_guid + port>) and one P_Key (0xffff) per port, and no MAD
 * support: no SMA, SA or CM client attaches to it and nothing posts work
 * to it. No dma_device: CONFIG_INFINIBAND_VIRT_DMA makes ib_dma_*() use
 * virtual addresses, as for rxe and siw.
 *
 * Only this module unregisters its devices (debugfs unregister, module
 * unload), so it can stop every raise before ib_core starts tearing a
 * device down: evsrc_fence(). ib_core then frees the device through
 * dealloc_driver after the last client (ib_async) destroyed its objects.
 */
#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "ib_async_evsrc.h"

#define EVSRC_MAX_NDEV		16
#define EVSRC_GUID		0x02ee5c0000000000ULL

static unsigned int ndev = 1;
module_param(ndev, uint, 0444);
MODULE_PARM_DESC(ndev, "devices (evsrc%d) to register at load, default 1");

static struct dentry *evsrc_root, *evsrc_add_file;
static DEFINE_MUTEX(evsrc_lock);	/* evsrc_devs, evsrc_exiting */
static LIST_HEAD(evsrc_devs);
static bool evsrc_exiting;
/* devices not yet through dealloc_driver: module unload waits for them */
static atomic_t evsrc_ndevs = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(evsrc_unreg_wait);
static atomic_t evsrc_serial = ATOMIC_INIT(0);

static int evsrc_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	/* ib_register_device() passes no udata from 7.x on */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = PAGE_SIZE;
	attr->max_qp = EVSRC_MAX_OBJ;
	attr->max_qp_wr = EVSRC_MAX_WR;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	attr->max_send_sge = EVSRC_MAX_SGE;
	attr->max_recv_sge = EVSRC_MAX_SGE;
	attr->max_sge_rd = EVSRC_MAX_SGE;
	attr->max_cq = EVSRC_MAX_OBJ;
	attr->max_cqe = EVSRC_MAX_CQE;
	attr->max_mr = EVSRC_MAX_OBJ;
	attr->max_pd = EVSRC_MAX_OBJ;
	attr->max_qp_rd_atom = 16;
	attr->max_qp_init_rd_atom = 16;
	attr->max_srq = EVSRC_MAX_OBJ;
	attr->max_srq_wr = EVSRC_MAX_WR;
	attr->max_srq_sge = EVSRC_MAX_SGE;
	attr->max_ah = EVSRC_MAX_OBJ;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	return 0;
}

/*
 * Must not fail: ib_core drops a port event whose cache refresh failed.
 * Each port has its own LID (its number) so events are told apart.
 */
static int evsrc_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	attr->state = READ_ONCE(to_edev(ibdev)->port_state[port]);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = IB_MTU_4096;
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 1U << 31;
	attr->lid = port;
	attr->sm_lid = 1;
	attr->max_vl_num = 1;
	attr->active_width = IB_WIDTH_4X;
	attr->active_speed = IB_SPEED_EDR;
	return 0;
}

static int evsrc_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	/* IB protocol without IB_MAD: max_mad_size must stay 0 */
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB;
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = 1;
	return 0;
}

/*
 * A table of one P_Key. The core asks only for indexes inside it; a query
 * outside is counted, so that a test sees whether ib_async passed one on
 * (a driver such as mlx5 reads some of them as "the whole table").
 */
static int evsrc_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index) {
		atomic_inc(&to_edev(ibdev)->pkey_beyond);
		return -EINVAL;
	}
	*pkey = 0xffff;
	return 0;
}

static int evsrc_query_gid(struct ib_device *ibdev, u32 port, int index,
			   union ib_gid *gid)
{
	if (index)
		return -EINVAL;
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = cpu_to_be64(be64_to_cpu(ibdev->node_guid) +
					       port);
	return 0;
}

/* Last op ib_core calls: every client is gone and every object destroyed. */
static void evsrc_dealloc_driver(struct ib_device *ibdev)
{
	struct evsrc_dev *edev = to_edev(ibdev);

	/* waits for in-flight debugfs reads and writes of this device */
	debugfs_remove_recursive(edev->dir);
	evsrc_reclaim(edev);
	xa_destroy(&edev->objs);
	if (atomic_dec_and_test(&evsrc_ndevs))
		wake_up(&evsrc_unreg_wait);
}

static const struct ib_device_ops evsrc_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.dealloc_driver = evsrc_dealloc_driver,
	.get_port_immutable = evsrc_get_port_immutable,
	.query_device = evsrc_query_device,
	.query_gid = evsrc_query_gid,
	.query_pkey = evsrc_query_pkey,
	.query_port = evsrc_query_port,
};

/* Take @edev off the module's list: only its claimer unregisters it. */
int evsrc_claim(struct evsrc_dev *edev)
{
	int ret = -ENODEV;

	mutex_lock(&evsrc_lock);
	if (!list_empty(&edev->list)) {
		list_del_init(&edev->list);
		ret = 0;
	}
	mutex_unlock(&evsrc_lock);
	return ret;
}

/*
 * Wait for running raises and refuse new ones. ib_core flushes ib_wq and
 * frees the GID cache while unregistering; an event dispatched after that
 * would refresh a freed cache.
 */
void evsrc_fence(struct evsrc_dev *edev)
{
	down_write(&edev->raise_rwsem);
	edev->dead = true;
	up_write(&edev->raise_rwsem);
}

/* @kverbs false: no MR verbs, so the core sees no kernel verbs provider. */
static int evsrc_add(const char *name, bool kverbs)
{
	struct evsrc_dev *edev;
	u32 port;
	int ret;

	edev = ib_alloc_device(evsrc_dev, ibdev);
	if (!edev)
		return -ENOMEM;
	INIT_LIST_HEAD(&edev->list);
	xa_init_flags(&edev->objs, XA_FLAGS_ALLOC1);
	init_rwsem(&edev->raise_rwsem);
	for (port = 1; port <= EVSRC_NPORTS; port++)
		edev->port_state[port] = IB_PORT_ACTIVE;
	/* dealloc_driver runs even if registration fails */
	atomic_inc(&evsrc_ndevs);

	strscpy(edev->ibdev.node_desc, "ib_async evsrc",
		sizeof(edev->ibdev.node_desc));
	edev->ibdev.node_type = RDMA_NODE_IB_CA;
	edev->ibdev.node_guid =
		cpu_to_be64(EVSRC_GUID + 0x100 * atomic_inc_return(&evsrc_serial));
	edev->ibdev.phys_port_cnt = EVSRC_NPORTS;
	edev->ibdev.num_comp_vectors = 1;
	edev->ibdev.local_dma_lkey = 0;
	ib_set_device_ops(&edev->ibdev, &evsrc_dev_ops);
	ib_set_device_ops(&edev->ibdev, &evsrc_verbs_ops);
	if (!kverbs) {
		edev->ibdev.ops.get_dma_mr = NULL;
		edev->ibdev.ops.reg_user_mr = NULL;
		edev->ibdev.ops.dereg_mr = NULL;
	}

	ret = ib_register_device(&edev->ibdev, name, NULL);
	if (ret) {
		ib_dealloc_device(&edev->ibdev);
		return ret;
	}
	evsrc_debugfs_add_dev(edev, evsrc_root);

	mutex_lock(&evsrc_lock);
	if (!evsrc_exiting) {
		list_add_tail(&edev->list, &evsrc_devs);
		edev = NULL;
	}
	mutex_unlock(&evsrc_lock);
	/* unloading raced with us: the device is ours to remove */
	if (edev) {
		evsrc_fence(edev);
		ib_unregister_device(&edev->ibdev);
		return -ENODEV;
	}
	return 0;
}

/*
 * Write a name ("evsrc%d" when empty) to register one more device, with
 * " nokverbs" after it for one without the kernel verbs ib_core requires
 * of kernel clients. Names are restricted to what is safe in sysfs and
 * debugfs.
 */
static ssize_t evsrc_add_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	static const char nokverbs[] = " nokverbs";
	char name[IB_DEVICE_NAME_MAX + sizeof(nokverbs)];
	bool kverbs = true;
	size_t n, i;
	int ret;

	if (len >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, len))
		return -EFAULT;
	name[len] = '\0';
	n = strcspn(name, "\n");
	if (n + 1 < len || (n < len && name[n] != '\n'))
		return -EINVAL;
	name[n] = '\0';
	if (n >= strlen(nokverbs) &&
	    !strcmp(name + n - strlen(nokverbs), nokverbs)) {
		kverbs = false;
		n -= strlen(nokverbs);
		name[n] = '\0';
	}
	if (n >= IB_DEVICE_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isalnum(name[i]) && !strchr("_-%", name[i]))
			return -EINVAL;
	if (n && strchr(name, '%') && !strstr(name, "%d"))
		return -EINVAL;
	ret = evsrc_add(n ? name : "evsrc%d", kverbs);
	return ret ? ret : len;
}

static const struct file_operations evsrc_add_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = evsrc_add_write,
};

static void evsrc_remove_all(void)
{
	struct evsrc_dev *edev, *tmp;
	LIST_HEAD(devs);

	mutex_lock(&evsrc_lock);
	evsrc_exiting = true;
	list_splice_init(&evsrc_devs, &devs);
	mutex_unlock(&evsrc_lock);

	list_for_each_entry_safe(edev, tmp, &devs, list) {
		list_del_init(&edev->list);
		evsrc_fence(edev);
		ib_unregister_device(&edev->ibdev);
	}
	/* the ones debugfs unregister queued */
	wait_event(evsrc_unreg_wait, !atomic_read(&evsrc_ndevs));
}

static int __init evsrc_init(void)
{
	unsigned int i;
	int ret = 0;

	if (ndev > EVSRC_MAX_NDEV)
		return -EINVAL;
	evsrc_root = debugfs_create_dir("ib_async_evsrc", NULL);
	evsrc_add_file = debugfs_create_file("add", 0200, evsrc_root, NULL,
					     &evsrc_add_fops);
	evsrc_delay_init(evsrc_root);
	evsrc_fault_init(evsrc_root);
	for (i = 0; i < ndev && !ret; i++)
		ret = evsrc_add("evsrc%d", true);
	if (ret) {
		debugfs_remove(evsrc_add_file);
		evsrc_remove_all();
		debugfs_remove_recursive(evsrc_root);
		evsrc_delay_exit();
		evsrc_fault_exit();
	}
	return ret;
}

static void __exit evsrc_exit(void)
{
	/* first the add file, so no device is being added meanwhile */
	debugfs_remove(evsrc_add_file);
	evsrc_remove_all();
	debugfs_remove_recursive(evsrc_root);
	evsrc_delay_exit();
	evsrc_fault_exit();
}

module_init(evsrc_init);
module_exit(evsrc_exit);

MODULE_DESCRIPTION("Test-only RDMA device that raises any async event");
MODULE_LICENSE("GPL");
