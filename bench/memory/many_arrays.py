import sys
n = int(sys.argv[1])
total = 0
previous = [0] * 1000
for i in range(n):
    a = [i] * 1000
    total += a[999] - previous[0]
    previous = a
print(total)
