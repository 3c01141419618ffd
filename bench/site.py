# The generated site of bench/crawl.sh and bench/fleetcrawl.sh:
# DIR/index.html links to the first page; page i links to pages
# 10i+1 .. 10i+10 (a tree, PAGES deep enough), to the index, to itself by
# "./" and "../site/" spellings, and to one shared image. Its unique URLs
# are PAGES + 3: the pages, index.html, the folder and logo.png.
#
#   python3 bench/site.py DIR PAGES
import os
import sys

d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d, exist_ok=True)


def page(i):
    kids = [k for k in range(10 * i + 1, 10 * i + 11) if k < n]
    links = "".join(f'<a href="p{k}.html">{k}</a>\n' for k in kids)
    return f'<html><body><a href="index.html">home</a> <a href="./p{i}.html">me</a> <a href="../site/p{i}.html">me</a>\n<img src="logo.png">\n{links}</body></html>\n'


for i in range(n):
    with open(os.path.join(d, f"p{i}.html"), "w") as f:
        f.write(page(i))
with open(os.path.join(d, "index.html"), "w") as f:
    f.write('<html><body><a href="p0.html">start</a></body></html>\n')
with open(os.path.join(d, "logo.png"), "wb") as f:
    f.write(b"\x89PNG" + b"\0" * 1000)
