// SPDX-License-Identifier: GPL-2.0
/*
 * ib_async_evsrc: a pause inside ib_async's delivery to an event channel,
 * for tests of what a command running meanwhile may see. Writing N to
 * delay_chan_push_ms makes the next ib_async_evq_push_chan_locked() spin
 * N ms on entry, once: inside the event handler's RCU read-side section,
 * with the channel queue's lock held, after the channel's subscriptions
 * were matched, before the record is queued.
 *
 * A kprobe, so that ib_async itself carries no test hook. Without kprobes
 * the file is not made, and the tests that want it skip.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>

#include "ib_async_evsrc.h"

#ifdef CONFIG_KPROBES

/* The longest pause asked: well inside RCU's stall timeout. */
#define EVSRC_DELAY_MAX_MS	5000

static atomic_t evsrc_delay_ms = ATOMIC_INIT(0);
static DEFINE_MUTEX(evsrc_probe_lock);
static bool evsrc_probed;

static int evsrc_push_pre(struct kprobe *p, struct pt_regs *regs)
{
	int ms = atomic_xchg(&evsrc_delay_ms, 0);

	if (ms)
		mdelay(ms);
	return 0;
}

static struct kprobe evsrc_push_probe = {
	.symbol_name = "ib_async_evq_push_chan_locked",
	.pre_handler = evsrc_push_pre,
};

/* Probe ib_async as loaded now: a probe of an unloaded module is gone. */
static int evsrc_probe(void)
{
	int ret = 0;

	mutex_lock(&evsrc_probe_lock);
	if (evsrc_probed && kprobe_gone(&evsrc_push_probe)) {
		unregister_kprobe(&evsrc_push_probe);
		evsrc_probed = false;
	}
	if (!evsrc_probed) {
		/* register_kprobe() fills addr in from symbol_name */
		evsrc_push_probe.addr = NULL;
		evsrc_push_probe.flags = 0;
		ret = register_kprobe(&evsrc_push_probe);
		evsrc_probed = !ret;
	}
	mutex_unlock(&evsrc_probe_lock);
	return ret;
}

static ssize_t evsrc_delay_write(struct file *f, const char __user *buf,
				 size_t len, loff_t *pos)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint_from_user(buf, len, 0, &ms);
	if (ret)
		return ret;
	if (ms > EVSRC_DELAY_MAX_MS)
		return -EINVAL;
	ret = evsrc_probe();
	if (ret)
		return ret;
	atomic_set(&evsrc_delay_ms, ms);
	return len;
}

static const struct file_operations evsrc_delay_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = evsrc_delay_write,
};

void evsrc_delay_init(struct dentry *root)
{
	debugfs_create_file("delay_chan_push_ms", 0200, root, NULL,
			    &evsrc_delay_fops);
}

void evsrc_delay_exit(void)
{
	if (evsrc_probed)
		unregister_kprobe(&evsrc_push_probe);
}

#else

void evsrc_delay_init(struct dentry *root)
{
}

void evsrc_delay_exit(void)
{
}

#endif
