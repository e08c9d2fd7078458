// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* HAVE_VM_FLAGS_SET: a VMA's flags change through vm_flags_set() (6.3) */
#include <linux/mm.h>

static void __maybe_unused probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTCOPY);
}
