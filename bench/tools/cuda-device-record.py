#!/usr/bin/env python3
"""Writes a Tile device record (`--device FILE`) for the CUDA GPU of this machine, every field
with its source, from the driver (cuDeviceGetAttribute through ctypes on libcuda.so.1), a
device-to-device copy measured here (PyTorch, CUDA events), and, for what no API reports, the
documented value with its reference.

  python3 bench/tools/cuda-device-record.py RECORD.json SOURCES.json

RECORD.json holds only the fields core/device/device.ts reads; SOURCES.json gives, per field,
the value, where it came from, and the raw driver attributes beside it (registers per SM, the
dynamic shared-memory opt-in, memory clock and bus width) that the record has no field for.
"""
import ctypes
import json
import statistics
import sys

# CUdevice_attribute values (cuda.h)
ATTR = {
    "MAX_THREADS_PER_BLOCK": 1, "MAX_SHARED_MEMORY_PER_BLOCK": 8, "WARP_SIZE": 10, "CLOCK_RATE": 13,
    "MULTIPROCESSOR_COUNT": 16, "MEMORY_CLOCK_RATE": 36, "GLOBAL_MEMORY_BUS_WIDTH": 37, "L2_CACHE_SIZE": 38,
    "MAX_THREADS_PER_MULTIPROCESSOR": 39, "COMPUTE_CAPABILITY_MAJOR": 75, "COMPUTE_CAPABILITY_MINOR": 76,
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 81, "MAX_REGISTERS_PER_MULTIPROCESSOR": 82,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 97, "MAX_BLOCKS_PER_MULTIPROCESSOR": 106,
}


def main():
    record_path, sources_path = sys.argv[1], sys.argv[2]
    cu = ctypes.CDLL("libcuda.so.1")
    assert cu.cuInit(0) == 0
    dev = ctypes.c_int()
    assert cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
    name = ctypes.create_string_buffer(256)
    cu.cuDeviceGetName(name, 255, dev)
    a = {}
    for k, v in ATTR.items():
        x = ctypes.c_int()
        rc = cu.cuDeviceGetAttribute(ctypes.byref(x), v, dev)
        a[k] = x.value if rc == 0 else None

    import torch
    big = torch.empty(1 << 28, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(big)
    for _ in range(3):
        dst.copy_(big)
    times = []
    for _ in range(9):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(10):
            dst.copy_(big)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / 10)  # ms per copy
    copy_gbs = 2 * big.numel() * 4 / (statistics.median(times) * 1e-3) / 1e9
    drv = "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_%s)"
    fields = {
        "name": (name.value.decode(), "cuDeviceGetName"),
        "simdWidth": (a["WARP_SIZE"], drv % "WARP_SIZE"),
        "maxThreadsPerGroup": (a["MAX_THREADS_PER_BLOCK"], drv % "MAX_THREADS_PER_BLOCK"),
        "threadgroupMemoryBytes": (a["MAX_SHARED_MEMORY_PER_BLOCK"], drv % "MAX_SHARED_MEMORY_PER_BLOCK" +
                                   ": the static __shared__ limit, which the emitter's threadgroup arrays (declared in the kernel body) are held to; dynamic shared memory can be opted into up to MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
        "vectorWidths": ([1, 4, 8], "the emitter's widths (not a hardware property)"),
        "privateBudget": (64, "kept from the M1 Max record: no driver attribute gives a per-thread register budget for a cached stripe (the hardware limit is 255 registers per thread, MAX_REGISTERS_PER_MULTIPROCESSOR per SM)"),
        "gpuCores": (a["MULTIPROCESSOR_COUNT"], drv % "MULTIPROCESSOR_COUNT"),
        "maxThreadsPerCore": (a["MAX_THREADS_PER_MULTIPROCESSOR"], drv % "MAX_THREADS_PER_MULTIPROCESSOR"),
        "threadgroupMemoryPerCore": (a["MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"], drv % "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"),
        "maxGroupsPerCore": (a["MAX_BLOCKS_PER_MULTIPROCESSOR"], drv % "MAX_BLOCKS_PER_MULTIPROCESSOR"),
        "bandwidthBytesPerNs": (int(round(copy_gbs)), "measured here: device-to-device copy of 1 GiB through PyTorch, bytes read + written over the median CUDA-event time of 9 batches of 10 copies"),
        "clockMhz": (a["CLOCK_RATE"] // 1000 if a["CLOCK_RATE"] else None, drv % "CLOCK_RATE" + " (kHz, the peak SM clock) / 1000"),
        "lanesPerCore": (128, "documented: CUDA C++ Programming Guide, arithmetic instruction throughput, compute capability 9.0: 128 32-bit floating-point add/multiply/FMA results per clock per SM"),
    }
    record = {k: v[0] for k, v in fields.items()}
    theoretical = None
    if a["MEMORY_CLOCK_RATE"] and a["GLOBAL_MEMORY_BUS_WIDTH"]:
        theoretical = 2 * a["MEMORY_CLOCK_RATE"] * 1e3 * a["GLOBAL_MEMORY_BUS_WIDTH"] / 8 / 1e9
    sources = {
        "fields": {k: {"value": v[0], "source": v[1]} for k, v in fields.items()},
        "driver_attributes": a,
        "compute_capability": f"{a['COMPUTE_CAPABILITY_MAJOR']}.{a['COMPUTE_CAPABILITY_MINOR']}",
        "copy_GBps_measured": round(copy_gbs, 1),
        "memory_GBps_from_clock_and_bus": round(theoretical, 1) if theoretical else None,
        "torch": torch.__version__,
    }
    json.dump(record, open(record_path, "w"), indent=1)
    json.dump(sources, open(sources_path, "w"), indent=1)
    print(json.dumps(record))
    print(json.dumps(sources["driver_attributes"]))
    print(f"copy {copy_gbs:.1f} GB/s measured; {sources['memory_GBps_from_clock_and_bus']} GB/s from memory clock x bus width")


if __name__ == "__main__":
    main()
