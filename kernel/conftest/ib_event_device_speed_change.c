// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* HAVE_IB_EVENT_DEVICE_SPEED_CHANGE: drivers can raise IB_EVENT_DEVICE_SPEED_CHANGE (7.x) */
#include <rdma/ib_verbs.h>

static const enum ib_event_type __maybe_unused probe = IB_EVENT_DEVICE_SPEED_CHANGE;
