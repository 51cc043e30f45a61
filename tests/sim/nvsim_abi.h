/*
 * The simulator's own transcription of the part of the NVML ABI it
 * implements (x86-64 Linux, LP64): return codes, enums, the structs that
 * cross the boundary, their version words, and the prototypes of every
 * exported symbol.  It is written from NVIDIA's nvml.h (NVML 13.3) and
 * the NVML API Reference, and deliberately shares nothing with the tool's
 * src/sources/nvml_abi.h: a layout mistake must show up as a disagreement
 * between the two, not as the same error on both sides.  Each size and
 * offset below is checked against the numbers those documents give, not
 * against a compiler's idea of them.  Nothing here has behaviour;
 * tests/sim/README describes what the simulator does.
 */
#ifndef NVSIM_ABI_H
#define NVSIM_ABI_H

#include <stddef.h>

/* Return codes: a 4-byte enum in the real header. */
typedef enum nvmlReturn_enum {
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
	NVML_ERROR_RESET_TYPE_NOT_SUPPORTED	= 30,
	NVML_ERROR_UNKNOWN			= 999
} nvmlReturn_t;

/* The handle: an opaque pointer passed by value. */
typedef struct nvmlDevice_st *nvmlDevice_t;

typedef enum nvmlClockType_enum {
	NVML_CLOCK_GRAPHICS	= 0,
	NVML_CLOCK_SM		= 1,
	NVML_CLOCK_MEM		= 2,
	NVML_CLOCK_VIDEO	= 3,
	NVML_CLOCK_COUNT	= 4
} nvmlClockType_t;

/*
 * Words nvmlDeviceSetGpuLockedClocks takes instead of MHz.  nvml.h numbers
 * them up from RANGE_START, so all of 0xffffff00 and above is theirs:
 * TDP is the base clock, UNLIMITED an open bound.  The header gives no
 * words for the memory lock.  Not in nvml-abi-facts.md: taken from the
 * header itself (NVIDIA/go-nvml gen/nvml/nvml.h, NVML 12.2.140), where
 * the enum stands just before nvmlDeviceSetGpuLockedClocks.  gcc and
 * clang make this enum unsigned int, as the values do not fit an int; it
 * stays 4 bytes.
 */
typedef enum nvmlClockLimitId_enum {
	NVML_CLOCK_LIMIT_ID_RANGE_START	= 0xffffff00u,
	NVML_CLOCK_LIMIT_ID_TDP		= 0xffffff01u,
	NVML_CLOCK_LIMIT_ID_UNLIMITED	= 0xffffff02u
} nvmlClockLimitId_t;

/* P-states run 0 (fastest) to 15; "unknown" is 32, not 16 and not -1. */
typedef enum nvmlPStates_enum {
	NVML_PSTATE_0		= 0,
	NVML_PSTATE_15		= 15,
	NVML_PSTATE_UNKNOWN	= 32
} nvmlPstates_t;

typedef enum nvmlTemperatureSensors_enum {
	NVML_TEMPERATURE_GPU	= 0,
	NVML_TEMPERATURE_COUNT	= 1
} nvmlTemperatureSensors_t;

typedef enum nvmlEnableState_enum {
	NVML_FEATURE_DISABLED	= 0,
	NVML_FEATURE_ENABLED	= 1
} nvmlEnableState_t;

typedef enum nvmlValueType_enum {
	NVML_VALUE_TYPE_DOUBLE			= 0,
	NVML_VALUE_TYPE_UNSIGNED_INT		= 1,
	NVML_VALUE_TYPE_UNSIGNED_LONG		= 2,
	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG	= 3,
	NVML_VALUE_TYPE_SIGNED_LONG_LONG	= 4,
	NVML_VALUE_TYPE_SIGNED_INT		= 5,
	NVML_VALUE_TYPE_UNSIGNED_SHORT		= 6
} nvmlValueType_t;

/* Which driver-side sample buffer nvmlDeviceGetSamples reads. */
typedef enum nvmlSamplingType_enum {
	NVML_TOTAL_POWER_SAMPLES		= 0,
	NVML_GPU_UTILIZATION_SAMPLES		= 1,
	NVML_MEMORY_UTILIZATION_SAMPLES		= 2,
	NVML_ENC_UTILIZATION_SAMPLES		= 3,
	NVML_DEC_UTILIZATION_SAMPLES		= 4,
	NVML_PROCESSOR_CLK_SAMPLES		= 5,
	NVML_MEMORY_CLK_SAMPLES			= 6
} nvmlSamplingType_t;

/* Limiters whose accumulated throttle time nvmlDeviceGetViolationStatus reports. */
typedef enum nvmlPerfPolicyType_enum {
	NVML_PERF_POLICY_POWER			= 0,
	NVML_PERF_POLICY_THERMAL		= 1,
	NVML_PERF_POLICY_SYNC_BOOST		= 2,
	NVML_PERF_POLICY_BOARD_LIMIT		= 3,
	NVML_PERF_POLICY_LOW_UTILIZATION	= 4,
	NVML_PERF_POLICY_RELIABILITY		= 5,
	NVML_PERF_POLICY_TOTAL_APP_CLOCKS	= 10,
	NVML_PERF_POLICY_TOTAL_BASE_CLOCKS	= 11
} nvmlPerfPolicyType_t;

typedef enum nvmlGpuVirtualizationMode {
	NVML_GPU_VIRTUALIZATION_MODE_NONE	= 0,
	NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH = 1,
	NVML_GPU_VIRTUALIZATION_MODE_VGPU	= 2,
	NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU	= 3,
	NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA	= 4
} nvmlGpuVirtualizationMode_t;

/* A vGPU instance is named by a plain unsigned int. */
typedef unsigned int nvmlVgpuInstance_t;

#define NVML_INIT_FLAG_NO_GPUS		1u
#define NVML_INIT_FLAG_NO_ATTACH	2u
#define NVML_INIT_FLAG_FORCE_INIT	4u

#define NVML_DEVICE_MIG_DISABLE		0u
#define NVML_DEVICE_MIG_ENABLE		1u

/* Buffer sizes, NUL included. */
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE	80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE	80
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE		96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE		96
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE	32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE	16

/* Field ids (nvmlDeviceGetFieldValues) and the power scopes. */
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION	83
#define NVML_FI_DEV_POWER_AVERAGE		185
#define NVML_FI_DEV_POWER_INSTANT		186
#define NVML_FI_DEV_POWER_MIN_LIMIT		187
#define NVML_FI_DEV_POWER_MAX_LIMIT		188
#define NVML_FI_DEV_POWER_DEFAULT_LIMIT		189
#define NVML_FI_DEV_POWER_CURRENT_LIMIT		190
#define NVML_FI_DEV_ENERGY			191
#define NVML_FI_DEV_POWER_REQUESTED_LIMIT	192
#define NVML_FI_MAX				303

#define NVML_POWER_SCOPE_GPU		0u
#define NVML_POWER_SCOPE_MODULE		1u
#define NVML_POWER_SCOPE_MEMORY		2u

/* Clocks event (throttle) reasons: a 64-bit mask. */
#define nvmlClocksEventReasonGpuIdle			0x1ull
#define nvmlClocksEventReasonApplicationsClocksSetting	0x2ull
#define nvmlClocksEventReasonSwPowerCap			0x4ull
#define nvmlClocksThrottleReasonHwSlowdown		0x8ull
#define nvmlClocksEventReasonSyncBoost			0x10ull
#define nvmlClocksEventReasonSwThermalSlowdown		0x20ull
#define nvmlClocksThrottleReasonHwThermalSlowdown	0x40ull
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown	0x80ull
#define nvmlClocksEventReasonDisplayClockSetting	0x100ull

/* An unsigned field that has no value reads as all ones. */
#define NVML_VALUE_NOT_AVAILABLE	(-1)

/*
 * A version word is the struct's size in the low bits and its version
 * number shifted left by 24.
 */
#define NVSIM_STRUCT_VERSION(size, ver)	((unsigned int)(size) | ((unsigned int)(ver) << 24))

typedef struct nvmlPciInfo_st {
	char		busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int	domain;
	unsigned int	bus;
	unsigned int	device;
	unsigned int	pciDeviceId;		/* device id high 16 bits, vendor low */
	unsigned int	pciSubSystemId;
	char		busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct nvmlUtilization_st {
	unsigned int	gpu;
	unsigned int	memory;
} nvmlUtilization_t;

/* v1 memory: note that free comes before used. */
typedef struct nvmlMemory_st {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
	unsigned int	version;		/* 4 bytes of padding follow */
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;

#define nvmlMemory_v2	NVSIM_STRUCT_VERSION(sizeof(nvmlMemory_v2_t), 2)

/* The 16-byte entries written by the unversioned running-process symbols. */
typedef struct nvmlProcessInfo_v1_st {
	unsigned int	pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

/* The 24-byte entries written by the _v2 and _v3 symbols. */
typedef struct nvmlProcessInfo_v2_st {
	unsigned int	pid;
	unsigned long long usedGpuMemory;
	unsigned int	gpuInstanceId;		/* all ones when MIG is off */
	unsigned int	computeInstanceId;
} nvmlProcessInfo_v2_t;

typedef nvmlProcessInfo_v2_t nvmlProcessInfo_t;

/* The old per-process utilization sample: pid first. */
typedef struct nvmlProcessUtilizationSample_st {
	unsigned int	pid;
	unsigned long long timeStamp;		/* µs of CPU wall-clock time */
	unsigned int	smUtil;
	unsigned int	memUtil;
	unsigned int	encUtil;
	unsigned int	decUtil;
} nvmlProcessUtilizationSample_t;

/* The newer per-process entry: timeStamp first, the reverse of the above. */
typedef struct nvmlProcessUtilizationInfo_v1_st {
	unsigned long long timeStamp;
	unsigned int	pid;
	unsigned int	smUtil;
	unsigned int	memUtil;
	unsigned int	encUtil;
	unsigned int	decUtil;
	unsigned int	jpgUtil;
	unsigned int	ofaUtil;
} nvmlProcessUtilizationInfo_v1_t;

typedef struct nvmlProcessesUtilizationInfo_v1_st {
	unsigned int	version;
	unsigned int	processSamplesCount;
	unsigned long long lastSeenTimeStamp;
	nvmlProcessUtilizationInfo_v1_t *procUtilArray;
} nvmlProcessesUtilizationInfo_v1_t;

typedef nvmlProcessesUtilizationInfo_v1_t nvmlProcessesUtilizationInfo_t;

#define nvmlProcessesUtilizationInfo_v1 \
	NVSIM_STRUCT_VERSION(sizeof(nvmlProcessesUtilizationInfo_v1_t), 1)

typedef struct nvmlAccountingStats_st {
	unsigned int	gpuUtilization;
	unsigned int	memoryUtilization;
	unsigned long long maxMemoryUsage;	/* bytes */
	unsigned long long time;		/* ms; 0 while the process runs */
	unsigned long long startTime;		/* µs of wall-clock time */
	unsigned int	isRunning;
	unsigned int	reserved[5];
} nvmlAccountingStats_t;

typedef union nvmlValue_st {
	double		dVal;
	int		siVal;
	unsigned int	uiVal;
	unsigned long	ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
	unsigned short	usVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
	unsigned int	fieldId;
	unsigned int	scopeId;
	long long	timestamp;		/* µs of wall-clock time */
	long long	latencyUsec;
	nvmlValueType_t	valueType;
	nvmlReturn_t	nvmlReturn;
	nvmlValue_t	value;
} nvmlFieldValue_t;

typedef struct nvmlSample_st {
	unsigned long long timeStamp;		/* µs of wall-clock time */
	nvmlValue_t	sampleValue;
} nvmlSample_t;

typedef struct nvmlViolationTime_st {
	unsigned long long referenceTime;	/* µs of wall-clock time */
	unsigned long long violationTime;	/* ns */
} nvmlViolationTime_t;

typedef struct nvmlVgpuInstanceUtilizationSample_st {
	nvmlVgpuInstance_t vgpuInstance;
	unsigned long long timeStamp;
	nvmlValue_t	smUtil;
	nvmlValue_t	memUtil;
	nvmlValue_t	encUtil;
	nvmlValue_t	decUtil;
} nvmlVgpuInstanceUtilizationSample_t;

/*
 * Layout checks.  The numbers are copied from the reference table, so a
 * field typed or ordered wrongly above fails the build here.
 */
_Static_assert(sizeof(nvmlReturn_t) == 4, "enums are 4 bytes");
_Static_assert(sizeof(nvmlDevice_t) == 8, "the handle is a pointer");
_Static_assert(sizeof(nvmlClockLimitId_t) == 4, "nvmlClockLimitId_t is 4 bytes");
_Static_assert(NVML_CLOCK_LIMIT_ID_UNLIMITED == NVML_CLOCK_LIMIT_ID_RANGE_START + 2,
    "the clock limit words are numbered up from RANGE_START");
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t size");
_Static_assert(offsetof(nvmlPciInfo_t, domain) == 16, "pci domain");
_Static_assert(offsetof(nvmlPciInfo_t, bus) == 20, "pci bus");
_Static_assert(offsetof(nvmlPciInfo_t, device) == 24, "pci device");
_Static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28, "pci device id");
_Static_assert(offsetof(nvmlPciInfo_t, pciSubSystemId) == 32, "pci subsystem");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "pci busId");
_Static_assert(sizeof(nvmlUtilization_t) == 8, "nvmlUtilization_t size");
_Static_assert(offsetof(nvmlUtilization_t, memory) == 4, "utilization memory");
_Static_assert(sizeof(nvmlMemory_t) == 24, "nvmlMemory_t size");
_Static_assert(offsetof(nvmlMemory_t, free) == 8, "memory free before used");
_Static_assert(offsetof(nvmlMemory_t, used) == 16, "memory used");
_Static_assert(sizeof(nvmlMemory_v2_t) == 40, "nvmlMemory_v2_t size");
_Static_assert(offsetof(nvmlMemory_v2_t, total) == 8, "memory v2 padding");
_Static_assert(offsetof(nvmlMemory_v2_t, reserved) == 16, "memory v2 reserved");
_Static_assert(offsetof(nvmlMemory_v2_t, free) == 24, "memory v2 free");
_Static_assert(offsetof(nvmlMemory_v2_t, used) == 32, "memory v2 used");
_Static_assert(nvmlMemory_v2 == 0x02000028u, "nvmlMemory_v2 version word");
_Static_assert(sizeof(nvmlProcessInfo_v1_t) == 16, "process info v1 size");
_Static_assert(offsetof(nvmlProcessInfo_v1_t, usedGpuMemory) == 8, "v1 memory");
_Static_assert(sizeof(nvmlProcessInfo_v2_t) == 24, "process info v2 size");
_Static_assert(offsetof(nvmlProcessInfo_v2_t, gpuInstanceId) == 16, "v2 gi");
_Static_assert(offsetof(nvmlProcessInfo_v2_t, computeInstanceId) == 20, "v2 ci");
_Static_assert(sizeof(nvmlProcessUtilizationSample_t) == 32, "util sample size");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, timeStamp) == 8, "sample ts");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, smUtil) == 16, "sample sm");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, memUtil) == 20, "sample mem");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, encUtil) == 24, "sample enc");
_Static_assert(offsetof(nvmlProcessUtilizationSample_t, decUtil) == 28, "sample dec");
_Static_assert(sizeof(nvmlProcessUtilizationInfo_v1_t) == 40, "util info size");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, pid) == 8, "info pid");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, smUtil) == 12, "info sm");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, memUtil) == 16, "info mem");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, encUtil) == 20, "info enc");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, decUtil) == 24, "info dec");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, jpgUtil) == 28, "info jpg");
_Static_assert(offsetof(nvmlProcessUtilizationInfo_v1_t, ofaUtil) == 32, "info ofa");
_Static_assert(sizeof(nvmlProcessesUtilizationInfo_v1_t) == 24, "utils info size");
_Static_assert(offsetof(nvmlProcessesUtilizationInfo_v1_t, processSamplesCount) == 4,
    "utils info count");
_Static_assert(offsetof(nvmlProcessesUtilizationInfo_v1_t, lastSeenTimeStamp) == 8,
    "utils info last seen");
_Static_assert(offsetof(nvmlProcessesUtilizationInfo_v1_t, procUtilArray) == 16,
    "utils info array");
_Static_assert(nvmlProcessesUtilizationInfo_v1 == 0x01000018u, "utils info version word");
_Static_assert(sizeof(nvmlAccountingStats_t) == 56, "accounting stats size");
_Static_assert(offsetof(nvmlAccountingStats_t, maxMemoryUsage) == 8, "acct max memory");
_Static_assert(offsetof(nvmlAccountingStats_t, time) == 16, "acct time");
_Static_assert(offsetof(nvmlAccountingStats_t, startTime) == 24, "acct start");
_Static_assert(offsetof(nvmlAccountingStats_t, isRunning) == 32, "acct running");
_Static_assert(offsetof(nvmlAccountingStats_t, reserved) == 36, "acct reserved");
_Static_assert(sizeof(nvmlValue_t) == 8, "nvmlValue_t size");
_Static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t size");
_Static_assert(offsetof(nvmlFieldValue_t, scopeId) == 4, "field scope");
_Static_assert(offsetof(nvmlFieldValue_t, timestamp) == 8, "field timestamp");
_Static_assert(offsetof(nvmlFieldValue_t, latencyUsec) == 16, "field latency");
_Static_assert(offsetof(nvmlFieldValue_t, valueType) == 24, "field value type");
_Static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) == 28, "field return");
_Static_assert(offsetof(nvmlFieldValue_t, value) == 32, "field value");
_Static_assert(sizeof(nvmlSample_t) == 16, "nvmlSample_t size");
_Static_assert(offsetof(nvmlSample_t, sampleValue) == 8, "sample value");
_Static_assert(sizeof(nvmlViolationTime_t) == 16, "nvmlViolationTime_t size");
_Static_assert(offsetof(nvmlViolationTime_t, violationTime) == 8, "violation time");
_Static_assert(sizeof(nvmlVgpuInstanceUtilizationSample_t) == 48, "vgpu sample size");
_Static_assert(offsetof(nvmlVgpuInstanceUtilizationSample_t, timeStamp) == 8, "vgpu ts");
_Static_assert(offsetof(nvmlVgpuInstanceUtilizationSample_t, smUtil) == 16, "vgpu sm");
_Static_assert(offsetof(nvmlVgpuInstanceUtilizationSample_t, decUtil) == 40, "vgpu dec");

/*
 * Every exported symbol, with the real prototype.  These are the only
 * symbols of default visibility in the library (nvsim.h hides the rest).
 */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInit(void);
nvmlReturn_t nvmlInitWithFlags(unsigned int);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t);
nvmlReturn_t nvmlSystemGetDriverVersion(char *, unsigned int);
nvmlReturn_t nvmlSystemGetNVMLVersion(char *, unsigned int);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *);
nvmlReturn_t nvmlDeviceGetCount(unsigned int *);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int, nvmlDevice_t *);
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int, nvmlDevice_t *);

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t, char *, unsigned int);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t, char *, unsigned int);
nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t, nvmlPciInfo_t *);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t, nvmlClockType_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t, nvmlClockType_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t, nvmlPstates_t *);
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t *);
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t, unsigned long long *);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t, unsigned long long *);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t *);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t, nvmlMemory_v2_t *);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t, nvmlPerfPolicyType_t,
    nvmlViolationTime_t *);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t, unsigned int *, unsigned int *);
/* MIG device handles (nvml.h, "MIG device management"). */
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t, unsigned int, nvmlDevice_t *);
nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t, nvmlDevice_t *);
nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t, nvmlGpuVirtualizationMode_t *);

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned int *);
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t, unsigned long long *);
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t, int, nvmlFieldValue_t *);
nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t, nvmlSamplingType_t, unsigned long long,
    nvmlValueType_t *, unsigned int *, nvmlSample_t *);

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
    unsigned int *, unsigned long long);
nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t,
    nvmlProcessesUtilizationInfo_t *);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t, unsigned int *,
    nvmlProcessInfo_t *);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t, unsigned int *,
    nvmlProcessInfo_v2_t *);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t, unsigned int *,
    nvmlProcessInfo_v1_t *);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t, unsigned int *,
    nvmlProcessInfo_t *);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t, unsigned int *,
    nvmlProcessInfo_v2_t *);
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t, unsigned int *,
    nvmlProcessInfo_v1_t *);
nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t, nvmlEnableState_t *);
nvmlReturn_t nvmlDeviceGetAccountingPids(nvmlDevice_t, unsigned int *, unsigned int *);
nvmlReturn_t nvmlDeviceGetAccountingStats(nvmlDevice_t, unsigned int, nvmlAccountingStats_t *);
nvmlReturn_t nvmlDeviceGetActiveVgpus(nvmlDevice_t, unsigned int *, nvmlVgpuInstance_t *);
nvmlReturn_t nvmlDeviceGetVgpuUtilization(nvmlDevice_t, unsigned long long, nvmlValueType_t *,
    unsigned int *, nvmlVgpuInstanceUtilizationSample_t *);

nvmlReturn_t nvmlDeviceSetGpuLockedClocks(nvmlDevice_t, unsigned int, unsigned int);
nvmlReturn_t nvmlDeviceResetGpuLockedClocks(nvmlDevice_t);
nvmlReturn_t nvmlDeviceSetMemoryLockedClocks(nvmlDevice_t, unsigned int, unsigned int);
nvmlReturn_t nvmlDeviceResetMemoryLockedClocks(nvmlDevice_t);

#endif /* NVSIM_ABI_H */
