// SPDX-License-Identifier: GPL-2.0
/* HAVE_HRTIMER_SETUP: hrtimer_setup() exists (6.13; hrtimer_init() is gone in 6.16) */
#include <linux/hrtimer.h>

static enum hrtimer_restart probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static void __maybe_unused probe(struct hrtimer *t)
{
	hrtimer_setup(t, probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
}
