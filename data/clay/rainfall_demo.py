"""Writes rainfall_demo.csv: ILLUSTRATIVE daily precipitation, not observations.

The file has the layout of a NOAA Climate Data Online "Daily Summaries" CSV export in standard
units (inches) for Syracuse Hancock International Airport (GHCN id USW00014771), the first-order
station nearest the Town of Clay, so a real export for that station drops in with no change.
The amounts are made up: light rain on a fixed pseudo-random pattern (all under 0.5 in) and four
storms of 0.5 in or more placed for the inspection calendar demo. Run: python3 data/clay/rainfall_demo.py
"""
import datetime as dt
import pathlib
import random

STORMS_IN = {  # the storms (>= 0.5 in) the demo's due list shows
    dt.date(2026, 6, 26): 1.12,
    dt.date(2026, 9, 18): 0.63,
    dt.date(2026, 11, 27): 0.82,  # a Friday: its inspection was due Saturday
    dt.date(2026, 11, 29): 0.55,  # a Sunday: its inspection is due Monday 2026-11-30
}
START, END = dt.date(2026, 3, 1), dt.date(2026, 11, 30)

rng = random.Random(20261130)
rows = ['"STATION","NAME","DATE","PRCP"']
day = START
while day <= END:
    if day in STORMS_IN:
        rain = STORMS_IN[day]
    elif rng.random() < 0.6:
        rain = 0.0
    else:
        rain = min(0.45, round(rng.expovariate(1 / 0.12), 2))
    rows.append(f'"USW00014771","SYRACUSE HANCOCK INTERNATIONAL AIRPORT, NY US","{day}","{rain:.2f}"')
    day += dt.timedelta(days=1)
out = pathlib.Path(__file__).with_name("rainfall_demo.csv")
out.write_text("\n".join(rows) + "\n")
print(f"wrote {out} ({len(rows) - 1} days)")
