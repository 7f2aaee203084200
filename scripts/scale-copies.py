"""More copies of the 14x14 scale file without parsing it: each copy moves every parcel
10 degrees of longitude west (the text "[-71." becomes "[-81.", so no digit of any
coordinate changes but the tens) and renumbers pid. Prints the features written."""
import re, sys
src, out, copies, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
pid_re = re.compile(r'"pid": (\d+)')
n = 0
with open(out + ".part", "w") as w:
    w.write('{"type":"FeatureCollection","features":[\n')
    for k in range(copies):
        base = None
        with open(src) as r:
            for line in r:
                if not line.startswith('{"type": "Feature"'):
                    continue
                if n >= limit:
                    break
                line = line.rstrip().rstrip(",")
                if k:
                    a, b = f"[-{71 + 10 * k}.", f"[-{70 + 10 * k}."
                    line = line.replace("[-71.", a).replace("[-70.", b)
                n += 1
                line = pid_re.sub(f'"pid": {n}', line, count=1)
                w.write(("" if n == 1 else ",\n") + line)
    w.write("\n]}\n")
import os; os.replace(out + ".part", out)
print(n)
