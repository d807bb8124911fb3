import sys
n = int(sys.argv[1])
s = ""
i = 0
while i < n:
    s = s + chr(97 + i % 26)
    i = i + 1
print(len(s), ord(s[n // 2]))
