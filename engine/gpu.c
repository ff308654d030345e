/* gpu.c — the GPU's architecture and interconnect names, and the interconnect a GPU preset
 * without link: gets (engine.h). */
#include "engine.h"

const char *const engine_gpu_arch_names[GPU_ARCH_COUNT] = {
    "sm75", "sm80", "sm86", "sm89", "sm90", "sm100", "sm103", "sm120", "sm121", "cdna2", "cdna3", "cdna4", "rdna4"};

const char *const engine_gpu_link_names[GPU_LINK_COUNT] = {"nvswitch", "pcie", "nvlink_bridge",
                                                           "mnnvl",    "xgmi", "unified"};

engine_gpu_link engine_gpu_default_link(engine_gpu_arch arch)
{
    switch (arch) {
    case GPU_ARCH_SM90:
    case GPU_ARCH_SM100:
    case GPU_ARCH_SM103:
        return GPU_LINK_NVSWITCH; /* H100/H200/B200/B300 ship on HGX boards first; PCIe/NVL cards say link: */
    default:
        return GPU_LINK_PCIE;
    }
}

bool engine_gpu_is_rocm(engine_gpu_arch arch)
{
    return arch == GPU_ARCH_CDNA2 || arch == GPU_ARCH_CDNA3 || arch == GPU_ARCH_CDNA4 || arch == GPU_ARCH_RDNA4;
}
