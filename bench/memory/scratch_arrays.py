import sys
n = int(sys.argv[1])
total = 0
for i in range(n):
    a = [0] * 100
    a[i % 100] = i
    total += a[i % 100] + len(a)
print(total)
