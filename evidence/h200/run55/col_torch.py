# PyTorch beside Tile for column reductions (run 48; aminmax added in run 54): torch.sum(x, 0), torch.softmax(x, 0), and the
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
if sys.argv[1] == "copy":
    a = torch.empty(1 << 28, device="cuda"); b = torch.empty_like(a)
    med, mn = timed(lambda: b.copy_(a), reps=20)
    print(f"copy 1 GiB: median {med:.1f} us; {2 * a.numel() * 4 / med / 1e3:.1f} GB/s (read + write)")
    sys.exit(0)
op, R, C = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
x = torch.randn(R, C, device="cuda")
if op == "sum":
    y = torch.empty(C, device="cuda")
    f = lambda: torch.sum(x, 0, out=y)
elif op == "aminmax":
    f = lambda: torch.aminmax(x, dim=0)
else:
    f = lambda: torch.softmax(x, 0)
med, mn = timed(f)
print(f"torch {op}(dim=0) {R}x{C}: median {med:.2f} us (7 rounds of 200; min {mn:.2f})")
