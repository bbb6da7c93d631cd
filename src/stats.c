/* SPDX-License-Identifier: ISC */
/*
 * stats.c - log.h's counters, alone, so that what the tests link without
 * log.c (precomp.c) can count at the site as every module does.
 */
#include "log.h"

struct stats stats;
