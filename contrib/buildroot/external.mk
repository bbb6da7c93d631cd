# SPDX-License-Identifier: ISC
include $(sort $(wildcard $(BR2_EXTERNAL_TLSGATE_PATH)/package/*/*.mk))
