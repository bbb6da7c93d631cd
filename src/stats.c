/*
 * stats.c - the counters of log.h's struct stats, alone: every module
 * adds to them at the site (stats.x++), the crypto that tests link
 * without the logger too (precomp.c).  log.c prints them.
 */
#include "log.h"

struct stats stats;
