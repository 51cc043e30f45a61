/*
 * Our own transcription of the parts of the NVML ABI that joulestat uses:
 * return codes, enum values, struct layouts and the version words of
 * versioned structs (x86-64 Linux, LP64).  The source of truth is
 * NVIDIA's nvml.h as published in NVIDIA/go-nvml (gen/nvml/nvml.h, NVML
 * 12.2 and 13.3 headers) and the NVML API Reference.
 * This header is deliberately not shared with the simulator in tests/sim,
 * which carries its own transcription: a layout mistake made here must not
 * be repeated there.  Every layout is pinned by _Static_assert
 * on sizeof and offsetof with numbers written out from the reference.
 *
 * The NVML type names keep NVIDIA's spelling.  Enumerations are
 * plain 4-byte integers here so that their size can never depend on the
 * compiler's choice of enum type; nvmlReturn_t is an int, as in nvtop.
 */
#ifndef JOULESTAT_NVML_ABI_H
#define JOULESTAT_NVML_ABI_H

#include <stddef.h>

/* Return codes (nvmlReturn_t). */
typedef int nvmlReturn_t;
enum {
	NVML_SUCCESS				= 0,
	NVML_ERROR_UNINITIALIZED		= 1,
	NVML_ERROR_INVALID_ARGUMENT		= 2,
	NVML_ERROR_NOT_SUPPORTED		= 3,
	NVML_ERROR_NO_PERMISSION		= 4,
	NVML_ERROR_ALREADY_INITIALIZED		= 5,
	NVML_ERROR_NOT_FOUND			= 6,
	NVML_ERROR_INSUFFICIENT_SIZE		= 7,
	NVML_ERROR_INSUFFICIENT_POWER		= 8,
	NVML_ERROR_DRIVER_NOT_LOADED		= 9,
	NVML_ERROR_TIMEOUT			= 10,
	NVML_ERROR_IRQ_ISSUE			= 11,
	NVML_ERROR_LIBRARY_NOT_FOUND		= 12,
	NVML_ERROR_FUNCTION_NOT_FOUND		= 13,
	NVML_ERROR_CORRUPTED_INFOROM		= 14,
	NVML_ERROR_GPU_IS_LOST			= 15,
	NVML_ERROR_RESET_REQUIRED		= 16,
	NVML_ERROR_OPERATING_SYSTEM		= 17,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH	= 18,
	NVML_ERROR_IN_USE			= 19,
	NVML_ERROR_MEMORY			= 20,
	NVML_ERROR_NO_DATA			= 21,
	NVML_ERROR_VGPU_ECC_NOT_SUPPORTED	= 22,
	NVML_ERROR_INSUFFICIENT_RESOURCES	= 23,
	NVML_ERROR_FREQ_NOT_SUPPORTED		= 24,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH	= 25,
	NVML_ERROR_DEPRECATED			= 26,
	NVML_ERROR_NOT_READY			= 27,
	NVML_ERROR_GPU_NOT_FOUND		= 28,
	NVML_ERROR_INVALID_STATE		= 29,
	NVML_ERROR_UNKNOWN			= 999,
};

/* An opaque handle, passed by value: a pointer to an incomplete struct. */
typedef struct nvmlDevice_st *nvmlDevice_t;

/* nvmlClockType_t */
typedef unsigned int nvmlClockType_t;
enum {
	NVML_CLOCK_GRAPHICS	= 0,
	NVML_CLOCK_SM		= 1,
	NVML_CLOCK_MEM		= 2,
	NVML_CLOCK_VIDEO	= 3,
};

/*
 * nvmlClockLimitId_t: words nvmlDeviceSetGpuLockedClocks takes in place of
 * a number of MHz (NVIDIA/go-nvml gen/nvml/nvml.h, NVML 12.2.140, commit
 * 075f45fd6a7b, next to the prototype).  The header numbers them from
 * RANGE_START up, so everything from 0xffffff00 on is reserved for them.
 * TDP for both bounds locks the graphics clock at the base clock, what
 * "nvidia-smi -lgc tdp,tdp" does; UNLIMITED leaves that bound open, and
 * UNLIMITED for both is the same as nvmlDeviceResetGpuLockedClocks.  The
 * two bounds must both be words or both be MHz: a mixed pair is
 * INVALID_ARGUMENT.  The header documents no words for the memory lock.
 * They exceed INT_MAX, so they are unsigned macros rather than enum
 * constants.
 */
typedef unsigned int nvmlClockLimitId_t;
#define NVML_CLOCK_LIMIT_ID_RANGE_START	0xffffff00u
#define NVML_CLOCK_LIMIT_ID_TDP		0xffffff01u
#define NVML_CLOCK_LIMIT_ID_UNLIMITED	0xffffff02u

/* nvmlPstates_t: 0 is the fastest state, 15 the slowest, 32 unknown. */
typedef unsigned int nvmlPstates_t;
enum {
	NVML_PSTATE_0		= 0,
	NVML_PSTATE_15		= 15,
	NVML_PSTATE_UNKNOWN	= 32,
};

/* nvmlTemperatureSensors_t */
typedef unsigned int nvmlTemperatureSensors_t;
enum {
	NVML_TEMPERATURE_GPU	= 0,
};

/* nvmlEnableState_t */
typedef unsigned int nvmlEnableState_t;
enum {
	NVML_FEATURE_DISABLED	= 0,
	NVML_FEATURE_ENABLED	= 1,
};

/* nvmlValueType_t: which member of nvmlValue_t holds the answer. */
typedef unsigned int nvmlValueType_t;
enum {
	NVML_VALUE_TYPE_DOUBLE			= 0,
	NVML_VALUE_TYPE_UNSIGNED_INT		= 1,
	NVML_VALUE_TYPE_UNSIGNED_LONG		= 2,
	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG	= 3,
	NVML_VALUE_TYPE_SIGNED_LONG_LONG	= 4,
	NVML_VALUE_TYPE_SIGNED_INT		= 5,
	NVML_VALUE_TYPE_UNSIGNED_SHORT		= 6,
};

/* nvmlSamplingType_t (nvmlDeviceGetSamples) */
typedef unsigned int nvmlSamplingType_t;
enum {
	NVML_TOTAL_POWER_SAMPLES	= 0,
};

/* nvmlPerfPolicyType_t (nvmlDeviceGetViolationStatus) */
typedef unsigned int nvmlPerfPolicyType_t;
enum {
	NVML_PERF_POLICY_POWER		= 0,
	NVML_PERF_POLICY_THERMAL	= 1,
};

/* nvmlGpuVirtualizationMode_t */
typedef unsigned int nvmlGpuVirtualizationMode_t;
enum {
	NVML_GPU_VIRTUALIZATION_MODE_NONE		= 0,
	NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH	= 1,
	NVML_GPU_VIRTUALIZATION_MODE_VGPU		= 2,
	NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU		= 3,
	NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA		= 4,
};

/* nvmlDeviceArchitecture_t is a plain unsigned int with #defined values. */
typedef unsigned int nvmlDeviceArchitecture_t;
#define NVML_DEVICE_ARCH_KEPLER		2u
#define NVML_DEVICE_ARCH_MAXWELL	3u
#define NVML_DEVICE_ARCH_PASCAL		4u
#define NVML_DEVICE_ARCH_VOLTA		5u
#define NVML_DEVICE_ARCH_TURING		6u
#define NVML_DEVICE_ARCH_AMPERE		7u
#define NVML_DEVICE_ARCH_ADA		8u
#define NVML_DEVICE_ARCH_HOPPER		9u
#define NVML_DEVICE_ARCH_BLACKWELL	10u
#define NVML_DEVICE_ARCH_T23X		11u	/* Orin */
#define NVML_DEVICE_ARCH_UNKNOWN	0xffffffffu

/* nvmlDeviceGetMigMode */
#define NVML_DEVICE_MIG_DISABLE		0u
#define NVML_DEVICE_MIG_ENABLE		1u

/* Field ids for nvmlDeviceGetFieldValues. */
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION	83u	/* ull, mJ */
#define NVML_FI_DEV_POWER_AVERAGE		185u	/* uint, mW, 1 s average */
#define NVML_FI_DEV_POWER_INSTANT		186u	/* uint, mW */

/* Scope of a power field (nvmlFieldValue_t.scopeId). */
#define NVML_POWER_SCOPE_GPU		0u

/* Clocks event (formerly throttle) reasons, an unsigned long long mask. */
#define NVML_CLOCKS_EVENT_REASON_GPU_IDLE		0x0000000000000001ull
#define NVML_CLOCKS_EVENT_REASON_APPLICATIONS_CLOCKS_SETTING 0x0000000000000002ull
#define NVML_CLOCKS_EVENT_REASON_SW_POWER_CAP		0x0000000000000004ull
#define NVML_CLOCKS_EVENT_REASON_HW_SLOWDOWN		0x0000000000000008ull
#define NVML_CLOCKS_EVENT_REASON_SYNC_BOOST		0x0000000000000010ull
#define NVML_CLOCKS_EVENT_REASON_SW_THERMAL_SLOWDOWN	0x0000000000000020ull
#define NVML_CLOCKS_EVENT_REASON_HW_THERMAL_SLOWDOWN	0x0000000000000040ull
#define NVML_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN 0x0000000000000080ull
#define NVML_CLOCKS_EVENT_REASON_DISPLAY_CLOCK_SETTING	0x0000000000000100ull

/* NVML_VALUE_NOT_AVAILABLE is -1: all ones in unsigned fields. */
#define NVML_VALUE_NOT_AVAILABLE_UINT	0xffffffffu
#define NVML_VALUE_NOT_AVAILABLE_ULL	0xffffffffffffffffull

/* Buffer sizes, including the terminating NUL. */
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE	80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE	80
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE		96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE		96
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE	32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE	16

/* A version word: the struct's size in the low bits, its version on top. */
#define NVML_ABI_VERSION(size, ver)	((unsigned int)(size) | ((unsigned int)(ver) << 24))

typedef struct nvmlPciInfo_st {
	char		busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int	domain;
	unsigned int	bus;
	unsigned int	device;
	unsigned int	pciDeviceId;	/* device id in the high 16 bits, vendor low */
	unsigned int	pciSubSystemId;
	char		busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct nvmlUtilization_st {
	unsigned int	gpu;
	unsigned int	memory;
} nvmlUtilization_t;

/* Running processes: the plain symbols write v1, _v2 and _v3 write v2. */
typedef struct nvmlProcessInfo_v1_st {
	unsigned int		pid;
	unsigned long long	usedGpuMemory;	/* bytes, or NOT_AVAILABLE */
} nvmlProcessInfo_v1_t;

typedef struct nvmlProcessInfo_v2_st {
	unsigned int		pid;
	unsigned long long	usedGpuMemory;
	unsigned int		gpuInstanceId;		/* 0xffffffff when MIG is off */
	unsigned int		computeInstanceId;
} nvmlProcessInfo_v2_t;

typedef nvmlProcessInfo_v2_t nvmlProcessInfo_t;

/* The 32-byte entry some early R535 drivers wrote from the _v3 calls. */
#define NVML_PROCESS_INFO_R535_SIZE	32

/* nvmlDeviceGetProcessUtilization: the entry starts with pid. */
typedef struct nvmlProcessUtilizationSample_st {
	unsigned int		pid;
	unsigned long long	timeStamp;	/* CLOCK_REALTIME, us */
	unsigned int		smUtil;
	unsigned int		memUtil;
	unsigned int		encUtil;
	unsigned int		decUtil;
} nvmlProcessUtilizationSample_t;

/* nvmlDeviceGetProcessesUtilizationInfo: the entry starts with timeStamp. */
typedef struct nvmlProcessUtilizationInfo_v1_st {
	unsigned long long	timeStamp;	/* CLOCK_REALTIME, us */
	unsigned int		pid;
	unsigned int		smUtil;
	unsigned int		memUtil;
	unsigned int		encUtil;
	unsigned int		decUtil;
	unsigned int		jpgUtil;
	unsigned int		ofaUtil;
} nvmlProcessUtilizationInfo_v1_t;

typedef struct nvmlProcessesUtilizationInfo_v1_st {
	unsigned int		version;	/* nvmlProcessesUtilizationInfo_v1 */
	unsigned int		processSamplesCount;
	unsigned long long	lastSeenTimeStamp;
	nvmlProcessUtilizationInfo_v1_t *procUtilArray;
} nvmlProcessesUtilizationInfo_v1_t;

typedef nvmlProcessesUtilizationInfo_v1_t nvmlProcessesUtilizationInfo_t;

#define nvmlProcessesUtilizationInfo_v1 \
	NVML_ABI_VERSION(sizeof(nvmlProcessesUtilizationInfo_v1_t), 1)

typedef struct nvmlAccountingStats_st {
	unsigned int		gpuUtilization;		/* %, or NOT_AVAILABLE */
	unsigned int		memoryUtilization;
	unsigned long long	maxMemoryUsage;		/* bytes */
	unsigned long long	time;			/* ms; 0 while running */
	unsigned long long	startTime;		/* CLOCK_REALTIME, us */
	unsigned int		isRunning;
	unsigned int		reserved[5];
} nvmlAccountingStats_t;

typedef union nvmlValue_st {
	double			dVal;
	int			siVal;
	unsigned int		uiVal;
	unsigned long		ulVal;
	unsigned long long	ullVal;
	signed long long	sllVal;
	unsigned short		usVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
	unsigned int		fieldId;
	unsigned int		scopeId;	/* 0 = NVML_POWER_SCOPE_GPU */
	long long		timestamp;	/* CLOCK_REALTIME, us */
	long long		latencyUsec;
	nvmlValueType_t		valueType;
	nvmlReturn_t		nvmlReturn;	/* per field: check before value */
	nvmlValue_t		value;
} nvmlFieldValue_t;

/* nvmlDeviceGetSamples */
typedef struct nvmlSample_st {
	unsigned long long	timeStamp;	/* CLOCK_REALTIME, us */
	nvmlValue_t		sampleValue;
} nvmlSample_t;

/* nvmlDeviceGetViolationStatus */
typedef struct nvmlViolationTime_st {
	unsigned long long	referenceTime;	/* CLOCK_REALTIME, us */
	unsigned long long	violationTime;	/* ns */
} nvmlViolationTime_t;

/* nvmlDeviceGetVgpuUtilization */
typedef unsigned int nvmlVgpuInstance_t;

typedef struct nvmlVgpuInstanceUtilizationSample_st {
	nvmlVgpuInstance_t	vgpuInstance;
	unsigned long long	timeStamp;	/* CLOCK_REALTIME, us */
	nvmlValue_t		smUtil;
	nvmlValue_t		memUtil;
	nvmlValue_t		encUtil;
	nvmlValue_t		decUtil;
} nvmlVgpuInstanceUtilizationSample_t;

/*
 * The layouts, written out from the reference (§3 and §4) rather than
 * computed: a change in any of these numbers is an ABI break.
 */
_Static_assert(sizeof(nvmlReturn_t) == 4, "nvmlReturn_t is a 4-byte enum");
_Static_assert(sizeof(nvmlDevice_t) == 8, "nvmlDevice_t is an 8-byte pointer");
_Static_assert(sizeof(nvmlPstates_t) == 4, "nvmlPstates_t is a 4-byte enum");
_Static_assert(sizeof(nvmlClockLimitId_t) == 4, "nvmlClockLimitId_t is a 4-byte enum");

_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t size");
_Static_assert(offsetof(nvmlPciInfo_t, domain) == 16, "nvmlPciInfo_t.domain");
_Static_assert(offsetof(nvmlPciInfo_t, bus) == 20, "nvmlPciInfo_t.bus");
_Static_assert(offsetof(nvmlPciInfo_t, device) == 24, "nvmlPciInfo_t.device");
_Static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28, "nvmlPciInfo_t.pciDeviceId");
_Static_assert(offsetof(nvmlPciInfo_t, pciSubSystemId) == 32, "nvmlPciInfo_t.pciSubSystemId");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t.busId");

_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t size");
_Static_assert(offsetof(nvmlUtilization_t, memory) == 4, "nvmlUtilization_t.memory");

_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "nvmlProcessInfo_v1_t size");
_Static_assert(offsetof(nvmlProcessInfo_v1_t, usedGpuMemory) == 8,
    "nvmlProcessInfo_v1_t.usedGpuMemory");
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "nvmlProcessInfo_v2_t size");
_Static_assert(offsetof(nvmlProcessInfo_v2_t, usedGpuMemory) == 8,
    "nvmlProcessInfo_v2_t.usedGpuMemory");
_Static_assert(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId) == 16,
    "nvmlProcessInfo_v2_t.gpuInstanceId");
_Static_assert(offsetof(nvmlProcessInfo_v2_t, computeInstanceId) == 20,
    "nvmlProcessInfo_v2_t.computeInstanceId");

_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32,
    "nvmlProcessUtilizationSample_t size");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, pid) == 0,
    "nvmlProcessUtilizationSample_t.pid");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, timeStamp) == 8,
    "nvmlProcessUtilizationSample_t.timeStamp");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16,
    "nvmlProcessUtilizationSample_t.smUtil");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, memUtil) == 20,
    "nvmlProcessUtilizationSample_t.memUtil");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, decUtil) == 28,
    "nvmlProcessUtilizationSample_t.decUtil");

_Static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) == 40,
    "nvmlProcessUtilizationInfo_v1_t size");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, timeStamp) == 0,
    "nvmlProcessUtilizationInfo_v1_t.timeStamp");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, pid) == 8,
    "nvmlProcessUtilizationInfo_v1_t.pid");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, smUtil) == 12,
    "nvmlProcessUtilizationInfo_v1_t.smUtil");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, memUtil) == 16,
    "nvmlProcessUtilizationInfo_v1_t.memUtil");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, ofaUtil) == 32,
    "nvmlProcessUtilizationInfo_v1_t.ofaUtil");

_Static_assert(sizeof(nvmlProcessesUtilizationInfo_v1_t) == 24,
    "nvmlProcessesUtilizationInfo_v1_t size");
_Static_assert(offsetof(nvmlProcessesUtilizationInfo_v1_t, processSamplesCount) == 4,
    "nvmlProcessesUtilizationInfo_v1_t.processSamplesCount");
_Static_assert(offsetof(nvmlProcessesUtilizationInfo_v1_t, lastSeenTimeStamp) == 8,
    "nvmlProcessesUtilizationInfo_v1_t.lastSeenTimeStamp");
_Static_assert(offsetof(nvmlProcessesUtilizationInfo_v1_t, procUtilArray) == 16,
    "nvmlProcessesUtilizationInfo_v1_t.procUtilArray");
_Static_assert(nvmlProcessesUtilizationInfo_v1 == 0x01000018u,
    "nvmlProcessesUtilizationInfo_v1 version word");

_Static_assert(sizeof(nvmlAccountingStats_t) == 56, "nvmlAccountingStats_t size");
_Static_assert(offsetof(nvmlAccountingStats_t, maxMemoryUsage) == 8,
    "nvmlAccountingStats_t.maxMemoryUsage");
_Static_assert(offsetof(nvmlAccountingStats_t, time) == 16, "nvmlAccountingStats_t.time");
_Static_assert(offsetof(nvmlAccountingStats_t, startTime) == 24,
    "nvmlAccountingStats_t.startTime");
_Static_assert(offsetof(nvmlAccountingStats_t, isRunning) == 32,
    "nvmlAccountingStats_t.isRunning");
_Static_assert(offsetof(nvmlAccountingStats_t, reserved) == 36,
    "nvmlAccountingStats_t.reserved");

_Static_assert(sizeof(nvmlValue_t) == 8, "nvmlValue_t size");
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t size");
_Static_assert(offsetof(nvmlFieldValue_t, scopeId) == 4, "nvmlFieldValue_t.scopeId");
_Static_assert(offsetof(nvmlFieldValue_t, timestamp) == 8, "nvmlFieldValue_t.timestamp");
_Static_assert(offsetof(nvmlFieldValue_t, latencyUsec) == 16, "nvmlFieldValue_t.latencyUsec");
_Static_assert(offsetof(nvmlFieldValue_t, valueType) == 24, "nvmlFieldValue_t.valueType");
_Static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) == 28, "nvmlFieldValue_t.nvmlReturn");
_Static_assert(offsetof(nvmlFieldValue_t, value) == 32, "nvmlFieldValue_t.value");

_Static_assert(sizeof(nvmlSample_t) == 16, "nvmlSample_t size");
_Static_assert(offsetof(nvmlSample_t, sampleValue) == 8, "nvmlSample_t.sampleValue");

_Static_assert(sizeof(nvmlViolationTime_t) == 16, "nvmlViolationTime_t size");
_Static_assert(offsetof(nvmlViolationTime_t, violationTime) == 8,
    "nvmlViolationTime_t.violationTime");

_Static_assert(sizeof(nvmlVgpuInstanceUtilizationSample_t) == 48,
    "nvmlVgpuInstanceUtilizationSample_t size");
_Static_assert(offsetof(nvmlVgpuInstanceUtilizationSample_t, timeStamp) == 8,
    "nvmlVgpuInstanceUtilizationSample_t.timeStamp");
_Static_assert(offsetof(nvmlVgpuInstanceUtilizationSample_t, smUtil) == 16,
    "nvmlVgpuInstanceUtilizationSample_t.smUtil");
_Static_assert(offsetof(nvmlVgpuInstanceUtilizationSample_t, memUtil) == 24,
    "nvmlVgpuInstanceUtilizationSample_t.memUtil");

#endif
