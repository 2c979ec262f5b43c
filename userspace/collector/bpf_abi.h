// C++ view of bpf/fscost.h: the structs the BPF side writes and we read.
#pragma once

#include <linux/types.h>

#include "fscost.h"

static_assert(sizeof(fscost_syscall_rule) == 24);
static_assert(sizeof(fscost_op_stats) == 8 * (7 + FSCOST_LAT_BUCKETS));
static_assert(sizeof(fscost_sample_key) == 24 + FSCOST_NAME_LEN);
static_assert(sizeof(fscost_offcpu_key) == 64 + 2 * FSCOST_NAME_LEN);
static_assert(sizeof(fscost_bg_key) == FSCOST_NAME_LEN + 8);
static_assert(sizeof(fscost_dev_key) == 8);
static_assert(sizeof(fscost_holder_key) == 56 + FSCOST_NAME_LEN);
static_assert(sizeof(fscost_lock_key) == 56);
static_assert(sizeof(fscost_lock_val) == 48);
static_assert(sizeof(fscost_stack) == 8 + 8 * FSCOST_STACK_DEPTH);
static_assert(sizeof(fscost_func_stats) == 32);
