"""Write a line to stderr and exit with the code given as argv[1]."""
import sys

print("bad things happened here", file=sys.stderr)
sys.exit(int(sys.argv[1]))
