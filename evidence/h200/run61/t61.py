# PyTorch beside Tile (run 61): torch.aminmax over dim 0 (columns) and dim 1 (rows), torch.sum(x, 0), and the
# device-to-device copy bandwidth (copy_ of 1 GiB) measured in the same process
import sys, torch
def timed(f, reps=200, rounds=7):
    for _ in range(20): f()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(rounds):
        s.record()
        for _ in range(reps): f()
        e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1000 / reps)
    ts.sort()
    return ts[len(ts) // 2], ts[0]
a = torch.empty(1 << 28, device="cuda"); b = torch.empty_like(a)
med, mn = timed(lambda: b.copy_(a), reps=20)
print(f"copy 1 GiB: median {med:.1f} us; {2 * a.numel() * 4 / med / 1e3:.1f} GB/s (read + write)", flush=True)
del a, b
for op in sys.argv[1:]:
    name, dim = op.split(":")
    for R, C in [(1024, 4096), (4096, 4096), (8192, 1024), (2048, 8192), (16384, 512)]:
        x = torch.randn(R, C, device="cuda")
        if name == "aminmax": f = lambda: torch.aminmax(x, dim=int(dim))
        else: f = lambda: torch.sum(x, int(dim))
        med, mn = timed(f)
        print(f"torch {name}(dim={dim}) {R}x{C}: median {med:.2f} us (7 rounds of 200; min {mn:.2f})", flush=True)
