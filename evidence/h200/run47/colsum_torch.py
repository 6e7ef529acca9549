import sys, torch
R, C = int(sys.argv[1]), int(sys.argv[2])
x = torch.randn(R, C, device="cuda")
for _ in range(20): torch.sum(x, 0)
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
ts = []
for _ in range(7):
    s.record()
    for _ in range(200): torch.sum(x, 0)
    e.record(); torch.cuda.synchronize(); ts.append(s.elapsed_time(e) * 1000 / 200)
ts.sort()
print(f"torch.sum(dim=0) {R}x{C}: median {ts[3]:.2f} us (7 rounds of 200; min {ts[0]:.2f})")
