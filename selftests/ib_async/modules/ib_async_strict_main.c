// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_strict: module lifetime, the probes on rxe and debugfs.
 *
 * The probes are armed when rdma_rxe goes live (or at load, if it is
 * there already or built in) and disarmed when it goes away: a kprobe in
 * an unloaded module is dead, and the objects the checker tracked went
 * with the module. A symbol this kernel's rxe lacks leaves that probe
 * missing, and what it would have tracked unjudged.
 *
 * /sys/kernel/debug/ib_async_strict/:
 *   checked          work requests examined
 *   violations       requests a hardware driver would have misused
 *   violations_by_kind  the same, one line per kind of violation
 *   unchecked        checks skipped: tracking incomplete, lists too long
 *   selftest_caught  bad synthetic requests the selftest found
 *   probes           one line per probe: symbol, state, missed calls
 *   selftest         write 1: check synthetic requests; -EIO if one bad
 *                    request was not caught or the good one was
 */
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>

#include "ib_async_strict.h"

#define STRICT_RXE	"rdma_rxe"

struct strict_probe {
	struct kprobe *kp;	/* a kprobe; NULL for a kretprobe */
	struct kretprobe *rp;	/* a kretprobe; NULL for a kprobe */
	unsigned int tracks;	/* enum strict_kind bits unknown without it */
	bool armed;
	int err;		/* why it is not armed; 0: rxe is not there */
};

#define STRICT_KP(p, kinds)	{ .kp = &(p), .tracks = (kinds) }
#define STRICT_KRP(p, kinds)	{ .rp = &(p), .tracks = (kinds) }

/*
 * rxe_post_send tracks MRs too: the REG_MRs it carries set their range.
 * rxe_reg_user_mr tracks nothing a check needs: ib_uverbs' MRs belong to
 * user PDs, whose QPs are skipped.
 */
static struct strict_probe strict_probes[] = {
	STRICT_KRP(strict_rp_post_send, STRICT_MR),
	STRICT_KP(strict_kp_post_recv, 0),
	STRICT_KP(strict_kp_post_srq_recv, 0),
	STRICT_KRP(strict_rp_alloc_pd, STRICT_PD),
	STRICT_KP(strict_kp_dealloc_pd, STRICT_PD),
	STRICT_KRP(strict_rp_create_ah, STRICT_AH),
	STRICT_KP(strict_kp_destroy_ah, STRICT_AH),
	STRICT_KRP(strict_rp_alloc_mr, STRICT_MR),
	STRICT_KRP(strict_rp_get_dma_mr, STRICT_MR),
	STRICT_KRP(strict_rp_reg_user_mr, 0),
	STRICT_KP(strict_kp_dereg_mr, STRICT_MR),
};

/* strict_probes' states, arming and disarming, the selftest */
static DEFINE_MUTEX(strict_arm_lock);
static struct dentry *strict_dir;

/* The kprobe itself, or the kretprobe's. */
static struct kprobe *strict_kp(const struct strict_probe *p)
{
	return p->rp ? &p->rp->kp : p->kp;
}

/* A call a kretprobe missed left its object unrecorded. */
static bool strict_probe_missed(const struct strict_probe *p)
{
	return p->rp && (READ_ONCE(p->rp->nmissed) ||
			 READ_ONCE(p->rp->kp.nmissed));
}

/**
 * strict_judgeable() - what the checker can judge now
 *
 * Return: enum strict_kind bits of the kinds whose every constructor and
 * destructor is probed and whose objects were all recorded since the last
 * reset; AHs and MRs only with PDs, as they are judged as objects of a PD
 * the checker saw created.
 */
unsigned int strict_judgeable(void)
{
	unsigned int kinds = strict_track_complete();
	const struct strict_probe *p;

	if (!READ_ONCE(strict_tracking))
		return 0;
	for (p = strict_probes; p < strict_probes + ARRAY_SIZE(strict_probes);
	     p++)
		if (!READ_ONCE(p->armed) || strict_probe_missed(p))
			kinds &= ~p->tracks;
	return kinds & STRICT_PD ? kinds : 0;
}

static void strict_probe_disarm(struct strict_probe *p)
{
	lockdep_assert_held(&strict_arm_lock);
	if (!p->armed)
		return;
	WRITE_ONCE(p->armed, false);
	if (p->rp)
		unregister_kretprobe(p->rp);
	else
		unregister_kprobe(p->kp);
}

static void strict_probe_arm(struct strict_probe *p)
{
	struct kprobe *kp = strict_kp(p);

	lockdep_assert_held(&strict_arm_lock);
	/* a built-in rxe never goes; a module rxe that did is disarmed */
	if (p->armed && !kprobe_gone(kp))
		return;
	strict_probe_disarm(p);
	/* registering resolves symbol_name into addr anew */
	kp->addr = NULL;
	kp->flags = 0;
	kp->nmissed = 0;
	if (p->rp) {
		p->rp->nmissed = 0;
		p->err = register_kretprobe(p->rp);
	} else {
		p->err = register_kprobe(kp);
	}
	WRITE_ONCE(p->armed, !p->err);
}

/*
 * Every probe first, then a fresh table: whatever rxe creates from here
 * on is seen by all the probes that follow it.
 */
static void strict_arm(void)
{
	unsigned int i;

	lockdep_assert_held(&strict_arm_lock);
	WRITE_ONCE(strict_tracking, false);
	for (i = 0; i < ARRAY_SIZE(strict_probes); i++)
		strict_probe_arm(&strict_probes[i]);
	strict_track_reset();
	WRITE_ONCE(strict_tracking, true);
}

static void strict_disarm(void)
{
	unsigned int i;

	lockdep_assert_held(&strict_arm_lock);
	WRITE_ONCE(strict_tracking, false);
	for (i = 0; i < ARRAY_SIZE(strict_probes); i++) {
		strict_probe_disarm(&strict_probes[i]);
		strict_probes[i].err = 0;
	}
	strict_track_reset();
}

static int strict_module_event(struct notifier_block *nb,
			       unsigned long state, void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, STRICT_RXE))
		return NOTIFY_DONE;
	mutex_lock(&strict_arm_lock);
	if (state == MODULE_STATE_LIVE)
		strict_arm();
	else if (state == MODULE_STATE_GOING)
		strict_disarm();
	mutex_unlock(&strict_arm_lock);
	return NOTIFY_OK;
}

static struct notifier_block strict_module_nb = {
	.notifier_call = strict_module_event,
};

static int strict_probes_show(struct seq_file *m, void *unused)
{
	const struct strict_probe *p;

	mutex_lock(&strict_arm_lock);
	for (p = strict_probes; p < strict_probes + ARRAY_SIZE(strict_probes);
	     p++) {
		const struct kprobe *kp = strict_kp(p);

		if (p->armed)
			seq_printf(m, "%s armed missed=%lu\n", kp->symbol_name,
				   kp->nmissed +
				   (p->rp ? (unsigned long)p->rp->nmissed : 0));
		else if (p->err)
			seq_printf(m, "%s missing %d\n", kp->symbol_name,
				   p->err);
		else
			seq_printf(m, "%s off (no %s)\n", kp->symbol_name,
				   STRICT_RXE);
	}
	mutex_unlock(&strict_arm_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(strict_probes);

static ssize_t strict_selftest_write(struct file *file,
				     const char __user *buf, size_t len,
				     loff_t *pos)
{
	bool run;
	int ret;

	ret = kstrtobool_from_user(buf, len, &run);
	if (ret)
		return ret;
	if (!run)
		return -EINVAL;
	/* no reset may drop the synthetic objects while it runs */
	mutex_lock(&strict_arm_lock);
	ret = strict_selftest();
	mutex_unlock(&strict_arm_lock);
	return ret ? ret : len;
}

static const struct file_operations strict_selftest_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = strict_selftest_write,
};

static int strict_violations_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	for (i = 0; i < STRICT_V_NR; i++)
		seq_printf(m, "%s %ld\n", strict_violation_names[i],
			   atomic_long_read(&strict_stats.by_kind[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(strict_violations);

static int strict_counter_get(void *data, u64 *val)
{
	*val = atomic_long_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(strict_counter_fops, strict_counter_get, NULL,
			 "%llu\n");

static void strict_debugfs_init(void)
{
	static const struct {
		const char *name;
		atomic_long_t *counter;
	} counters[] = {
		{ "checked", &strict_stats.checked },
		{ "violations", &strict_stats.violations },
		{ "unchecked", &strict_stats.unchecked },
		{ "selftest_caught", &strict_stats.selftest_caught },
	};
	unsigned int i;

	strict_dir = debugfs_create_dir("ib_async_strict", NULL);
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		debugfs_create_file_unsafe(counters[i].name, 0444, strict_dir,
					   counters[i].counter,
					   &strict_counter_fops);
	debugfs_create_file("probes", 0444, strict_dir, NULL,
			    &strict_probes_fops);
	debugfs_create_file("violations_by_kind", 0444, strict_dir, NULL,
			    &strict_violations_fops);
	debugfs_create_file("selftest", 0200, strict_dir, NULL,
			    &strict_selftest_fops);
}

static int __init strict_init(void)
{
	int ret;

	strict_check_init();
	/* first the notifier: an rxe loaded meanwhile arms the probes too */
	ret = register_module_notifier(&strict_module_nb);
	if (ret)
		return ret;
	mutex_lock(&strict_arm_lock);
	strict_arm();
	mutex_unlock(&strict_arm_lock);
	strict_debugfs_init();
	return 0;
}

static void __exit strict_exit(void)
{
	debugfs_remove_recursive(strict_dir);
	unregister_module_notifier(&strict_module_nb);
	mutex_lock(&strict_arm_lock);
	strict_disarm();
	mutex_unlock(&strict_arm_lock);
}

module_init(strict_init);
module_exit(strict_exit);

MODULE_DESCRIPTION("Test-only checker of kernel work requests posted to rxe");
MODULE_LICENSE("GPL");
