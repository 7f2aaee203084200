//! The inspection calendar of §230-20 D(9)(a)[2] on hand-checked cases (a storm on a Friday,
//! two storms in a row, a phase not started, a stabilized site, a site that is not A/B/C, an
//! undetermined rule), the rainfall formats and bad rainfall files, the demo's due list, the
//! route, the day sheet and the command. Fixture values are made up (tests/fixtures/rainfall).

mod common;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use chrono::NaiveDate;
use http_body_util::BodyExt;
use outfall_core::calendar::{due_list, CalendarSite, DueList, ItemKind, Urgency};
use outfall_core::load::rainfall::{read_file, RainFormat, RainUnits, Rainfall};
use outfall_core::record::{Inspection, RainfallDay};
use outfall_core::{Catalog, Rules};
use std::path::{Path, PathBuf};
use tower::ServiceExt;

fn d(s: &str) -> NaiveDate {
    s.parse().expect("a date")
}

fn site(id: &str, status: &str, required: Option<bool>, start: &str, end: &str) -> CalendarSite {
    CalendarSite {
        id: id.into(),
        name: Some(format!("site {id}")),
        address: None,
        // The data set's word, through the status vocabulary, as a report gives it.
        status: outfall_core::claims::lookup(
            &outfall_core::claims::Vocabulary::default().status,
            status,
        )
        .map(String::from),
        status_recorded: Some(status.into()),
        phases: vec![("1".into(), Some(d(start)), Some(d(end)))],
        inspections_required: required,
        reason: match required {
            Some(false) => "Neither Condition A, B nor C applies".into(),
            None => "Condition A is undetermined".into(),
            Some(true) => "Condition B".into(),
        },
        missing: if required.is_none() {
            vec!["a receiving water within 1000 m".into()]
        } else {
            Vec::new()
        },
        conditions: vec!["B".into()],
    }
}

fn rain(date: &str, rain_in: f64) -> RainfallDay {
    RainfallDay {
        date: d(date),
        rain_in,
        source: "test gauge".into(),
    }
}

/// Every day from `from` to `to` dry, plus the given wet days.
fn record(from: &str, to: &str, wet: &[(&str, f64)]) -> Vec<RainfallDay> {
    d(from)
        .iter_days()
        .take_while(|x| *x <= d(to))
        .map(|x| {
            let r = wet.iter().find(|(w, _)| d(w) == x).map_or(0.0, |(_, r)| *r);
            RainfallDay {
                date: x,
                rain_in: r,
                source: "test gauge".into(),
            }
        })
        .collect()
}

fn inspected(site: &str, date: &str) -> Inspection {
    Inspection {
        site_id: site.into(),
        date: d(date),
        inspector: "J. Inspector, PE".into(),
        findings: "silt fence holding".into(),
        corrective_actions: String::new(),
        corrective_due: None,
    }
}

fn list(sites: &[CalendarSite], insp: &[Inspection], rain: &[RainfallDay], as_of: &str) -> DueList {
    due_list(sites, insp, rain, &Rules::default(), d(as_of))
}

fn storm_items(l: &DueList, id: &str) -> Vec<(NaiveDate, NaiveDate, Urgency)> {
    l.sites
        .iter()
        .find(|s| s.site_id == id)
        .map(|s| {
            s.items
                .iter()
                .filter(|i| i.kind == ItemKind::Storm)
                .map(|i| (i.storm.as_ref().expect("storm").date, i.due, i.urgency))
                .collect()
        })
        .unwrap_or_default()
}

fn cycle(l: &DueList, id: &str) -> (NaiveDate, Urgency) {
    let s = l
        .sites
        .iter()
        .find(|s| s.site_id == id)
        .expect("site listed");
    let c = s
        .items
        .iter()
        .find(|i| i.kind == ItemKind::Cycle)
        .expect("cycle item");
    (c.due, c.urgency)
}

#[test]
fn storm_on_a_friday_is_due_on_saturday_not_after_the_weekend() {
    let sites = [site("S", "active", Some(true), "2026-11-02", "2027-03-31")];
    let wet = record("2026-11-01", "2026-11-30", &[("2026-11-20", 0.82)]);
    assert_eq!(d("2026-11-20").format("%a").to_string(), "Fri");
    let thu = [inspected("S", "2026-11-19")];

    let fri = list(&sites, &thu, &wet, "2026-11-20");
    assert_eq!(
        storm_items(&fri, "S"),
        vec![(d("2026-11-20"), d("2026-11-21"), Urgency::DueThisWeek)]
    );
    assert_eq!(fri.sites[0].items[0].due_weekday, "Sat");
    assert_eq!(cycle(&fri, "S"), (d("2026-11-26"), Urgency::DueThisWeek));

    let sat = list(&sites, &thu, &wet, "2026-11-21");
    assert_eq!(storm_items(&sat, "S")[0].2, Urgency::DueToday);
    assert_eq!(sat.counts.due_today, 1);

    let mon = list(&sites, &thu, &wet, "2026-11-23");
    assert_eq!(storm_items(&mon, "S")[0].2, Urgency::Overdue);
    assert_eq!(mon.sites[0].urgency, Urgency::Overdue);
    assert_eq!(mon.sites[0].items[0].days_overdue, 2);

    // Inspected on the Saturday: satisfied, and the 7-day cycle runs from it.
    let done = [inspected("S", "2026-11-19"), inspected("S", "2026-11-21")];
    let mon = list(&sites, &done, &wet, "2026-11-23");
    assert!(storm_items(&mon, "S").is_empty());
    assert_eq!(cycle(&mon, "S"), (d("2026-11-28"), Urgency::DueThisWeek));
    assert!(mon.sites[0].late_storms.is_empty());

    // Inspected on the Monday after: no longer owed, but recorded as late.
    let late = [inspected("S", "2026-11-19"), inspected("S", "2026-11-23")];
    let tue = list(&sites, &late, &wet, "2026-11-24");
    assert!(storm_items(&tue, "S").is_empty());
    let l = &tue.sites[0].late_storms;
    assert_eq!(l.len(), 1);
    assert_eq!(
        (l[0].storm.date, l[0].inspected),
        (d("2026-11-20"), d("2026-11-23"))
    );
}

#[test]
fn two_storms_in_a_row_each_need_an_inspection_within_their_own_24_hours() {
    let sites = [site("S", "active", Some(true), "2026-11-02", "2027-03-31")];
    let wet = record(
        "2026-11-01",
        "2026-11-30",
        &[("2026-11-20", 0.6), ("2026-11-21", 0.7)],
    );
    let thu = [inspected("S", "2026-11-19")];

    // Saturday, no inspection yet: Friday's is due today, Saturday's by Sunday.
    let sat = list(&sites, &thu, &wet, "2026-11-21");
    assert_eq!(
        storm_items(&sat, "S"),
        vec![
            (d("2026-11-20"), d("2026-11-21"), Urgency::DueToday),
            (d("2026-11-21"), d("2026-11-22"), Urgency::DueThisWeek),
        ]
    );

    // One inspection on the second storm day lies within both windows: both satisfied.
    let on_second = [inspected("S", "2026-11-19"), inspected("S", "2026-11-21")];
    let mon = list(&sites, &on_second, &wet, "2026-11-23");
    assert!(storm_items(&mon, "S").is_empty());
    assert!(mon.sites[0].late_storms.is_empty());

    // One inspection the day after the second: the second is satisfied, the first was late.
    let day_after = [inspected("S", "2026-11-19"), inspected("S", "2026-11-22")];
    let mon = list(&sites, &day_after, &wet, "2026-11-23");
    assert!(storm_items(&mon, "S").is_empty());
    let late: Vec<NaiveDate> = mon.sites[0]
        .late_storms
        .iter()
        .map(|l| l.storm.date)
        .collect();
    assert_eq!(late, vec![d("2026-11-20")]);

    // No inspection at all: both overdue, each with its own deadline.
    let mon = list(&sites, &thu, &wet, "2026-11-23");
    assert_eq!(
        storm_items(&mon, "S"),
        vec![
            (d("2026-11-20"), d("2026-11-21"), Urgency::Overdue),
            (d("2026-11-21"), d("2026-11-22"), Urgency::Overdue),
        ]
    );
}

#[test]
fn the_threshold_is_half_an_inch_or_more() {
    let sites = [site("S", "active", Some(true), "2026-11-02", "2027-03-31")];
    let wet = record(
        "2026-11-01",
        "2026-11-30",
        &[("2026-11-10", 0.49), ("2026-11-12", 0.5)],
    );
    let l = list(&sites, &[inspected("S", "2026-11-09")], &wet, "2026-11-13");
    let dates: Vec<NaiveDate> = storm_items(&l, "S").iter().map(|s| s.0).collect();
    assert_eq!(dates, vec![d("2026-11-12")]);
}

#[test]
fn the_cycle_runs_from_the_phase_start_until_an_inspection_is_logged() {
    let sites = [site("S", "active", Some(true), "2026-11-02", "2027-03-31")];
    let dry = record("2026-11-01", "2026-11-30", &[]);
    assert_eq!(
        cycle(&list(&sites, &[], &dry, "2026-11-03"), "S"),
        (d("2026-11-09"), Urgency::DueThisWeek)
    );
    assert_eq!(
        cycle(&list(&sites, &[], &dry, "2026-11-09"), "S"),
        (d("2026-11-09"), Urgency::DueToday)
    );
    let late = list(&sites, &[], &dry, "2026-11-10");
    assert_eq!(cycle(&late, "S"), (d("2026-11-09"), Urgency::Overdue));
    assert_eq!(late.sites[0].items[0].days_overdue, 1);
    // An inspection logged after the as-of date is not known then.
    let future = [inspected("S", "2026-11-12")];
    assert_eq!(
        cycle(&list(&sites, &future, &dry, "2026-11-10"), "S").1,
        Urgency::Overdue
    );
    // Another site's inspection does not count.
    let other = [inspected("T", "2026-11-09")];
    assert_eq!(
        cycle(&list(&sites, &other, &dry, "2026-11-10"), "S").1,
        Urgency::Overdue
    );
}

#[test]
fn a_site_whose_phase_has_not_started_owes_nothing_yet() {
    let sites = [site("S", "active", Some(true), "2027-01-01", "2027-06-30")];
    let wet = record("2026-11-01", "2026-11-30", &[("2026-11-20", 1.2)]);
    let l = list(&sites, &[], &wet, "2026-11-30");
    assert!(l.sites.is_empty());
    assert_eq!(l.not_due.len(), 1);
    assert!(
        l.not_due[0].reason.contains("not started") && l.not_due[0].reason.contains("2027-01-01"),
        "{}",
        l.not_due[0].reason
    );
    // The storm before the start is not owed once it starts either.
    let l = list(&sites, &[], &wet, "2027-01-02");
    assert!(storm_items(&l, "S").is_empty());
    assert_eq!(cycle(&l, "S"), (d("2027-01-08"), Urgency::DueThisWeek));
}

#[test]
fn stabilized_sites_and_sites_that_are_not_a_b_or_c_owe_no_inspections() {
    let wet = record("2026-11-01", "2026-11-30", &[("2026-11-20", 1.2)]);
    let sites = [
        site("STAB", "stabilized", Some(true), "2026-03-01", "2026-06-30"),
        site("NOTABC", "active", Some(false), "2026-05-15", "2026-12-15"),
        site("DUE", "active", Some(true), "2026-05-15", "2026-12-15"),
    ];
    let l = list(&sites, &[], &wet, "2026-11-23");
    let listed: Vec<&str> = l.sites.iter().map(|s| s.site_id.as_str()).collect();
    assert_eq!(listed, vec!["DUE"]);
    let not_due: Vec<(&str, &str)> = l
        .not_due
        .iter()
        .map(|u| (u.site_id.as_str(), u.reason.as_str()))
        .collect();
    assert_eq!(not_due.len(), 2);
    assert!(not_due[0].0 == "STAB" && not_due[0].1.contains("stabilized"));
    assert!(not_due[1].0 == "NOTABC" && not_due[1].1.contains("Neither Condition A, B nor C"));
}

#[test]
fn an_undetermined_rule_is_listed_as_needing_data_not_dropped() {
    let sites = [site("S", "active", None, "2026-05-15", "2026-12-15")];
    let l = list(&sites, &[], &[], "2026-11-23");
    assert!(l.sites.is_empty() && l.not_due.is_empty());
    assert_eq!(l.needs_data.len(), 1);
    assert_eq!(
        l.needs_data[0].missing,
        vec!["a receiving water within 1000 m"]
    );
    // No status at all: needs data too.
    let mut s = site("S", "active", Some(true), "2026-05-15", "2026-12-15");
    s.status = None;
    assert_eq!(list(&[s], &[], &[], "2026-11-23").needs_data.len(), 1);
    // No dated phase and no inspection: the cycle has no start.
    let mut s = site("S", "active", Some(true), "2026-05-15", "2026-12-15");
    s.phases = vec![("1".into(), None, None)];
    let l = list(&[s.clone()], &[], &[], "2026-11-23");
    assert!(l.needs_data[0].reason.contains("no phase start"));
    // ... but a logged inspection gives it one.
    let l = list(&[s], &[inspected("S", "2026-11-20")], &[], "2026-11-23");
    assert_eq!(cycle(&l, "S"), (d("2026-11-27"), Urgency::DueThisWeek));
}

#[test]
fn settings_come_from_the_rules() {
    let rules = Rules {
        inspection_interval_days: 14,
        storm_threshold_in: 1.0,
        storm_inspection_hours: 48,
        ..Rules::default()
    };
    let sites = [site("S", "active", Some(true), "2026-11-02", "2027-03-31")];
    let wet = record(
        "2026-11-01",
        "2026-11-30",
        &[("2026-11-10", 0.8), ("2026-11-12", 1.0)],
    );
    let l = due_list(&sites, &[], &wet, &rules, d("2026-11-13"));
    assert_eq!(cycle(&l, "S").0, d("2026-11-16"));
    assert_eq!(
        storm_items(&l, "S"),
        vec![(d("2026-11-12"), d("2026-11-14"), Urgency::DueThisWeek)]
    );
}

#[test]
fn the_larger_of_two_sources_for_a_day_counts_and_gaps_are_reported() {
    let sites = [site("S", "active", Some(true), "2026-11-02", "2027-03-31")];
    let mut r = record("2026-11-01", "2026-11-20", &[("2026-11-18", 0.3)]);
    r.push(RainfallDay {
        date: d("2026-11-18"),
        rain_in: 0.6,
        source: "officer: site gauge".into(),
    });
    let l = list(&sites, &[inspected("S", "2026-11-16")], &r, "2026-11-23");
    let s = &l.sites[0];
    let storm = s
        .items
        .iter()
        .find_map(|i| i.storm.as_ref())
        .expect("a storm");
    assert_eq!(
        (storm.rain_in, storm.source.as_str()),
        (0.6, "officer: site gauge")
    );
    // 21, 22 and 23 November have no record.
    assert_eq!(s.unrecorded_rain_days, 3);
    assert!(s
        .notes
        .iter()
        .any(|n| n.contains("no rainfall record for 3 day")));
    // No rainfall at all: every day since is unrecorded, and the list says none is loaded.
    let l = list(
        &sites,
        &[inspected("S", "2026-11-16")],
        &[rain("2026-11-30", 2.0)],
        "2026-11-23",
    );
    assert_eq!(l.rainfall.days, 0);
    assert_eq!(l.sites[0].unrecorded_rain_days, 8);
}

// ---- rainfall formats ----

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rainfall")
        .join(name)
}

fn read(name: &str, station: Option<&str>, units: Option<&str>) -> Rainfall {
    read_file(&fixture(name), name, station, units)
        .unwrap_or_else(|e| panic!("{name} should read: {e}"))
}

fn inches(r: &Rainfall) -> Vec<(NaiveDate, f64)> {
    r.days
        .iter()
        .map(|x| (x.date, (x.rain_in * 1000.0).round() / 1000.0))
        .collect()
}

#[test]
fn ghcn_daily_long_form_is_tenths_of_mm_and_skips_flags_and_missing() {
    let r = read("ghcn_by_year.csv", Some("USW00014771"), None);
    assert_eq!(
        (r.format, r.units),
        (RainFormat::GhcnDaily, RainUnits::TenthsMm)
    );
    assert_eq!(r.station, "USW00014771");
    // 208 tenths of mm = 0.819 in; 5 = 0.020 (a trace flag is a measurement flag, kept);
    // 22 Nov failed a quality check (X) and 23 Nov is -9999: both unknown. 127 = 0.5 in.
    assert_eq!(
        inches(&r),
        vec![
            (d("2026-11-19"), 0.0),
            (d("2026-11-20"), 0.819),
            (d("2026-11-21"), 0.02),
            (d("2026-11-24"), 0.5),
        ]
    );
    assert_eq!(r.quality_flagged, 1);
    assert!(r.problems.is_empty());
    assert_eq!(r.days[1].source, "USW00014771, ghcn_by_year.csv");
}

#[test]
fn several_stations_without_a_choice_use_the_longest_and_say_so() {
    let r = read("ghcn_by_year.csv", None, None);
    assert_eq!(r.station, "USW00014771");
    assert_eq!(r.stations.len(), 2);
    assert_eq!(r.problems.len(), 1);
    let p = &r.problems[0].reason;
    assert!(
        p.contains("USC00305925") && p.contains("using USW00014771") && p.contains("station"),
        "{p}"
    );
    let b = read("cdo_two_stations.csv", Some("usc00305925"), None);
    assert_eq!(inches(&b), vec![(d("2026-11-20"), 1.3)]);
    let err = read_file(
        &fixture("cdo_two_stations.csv"),
        "x",
        Some("USW00099999"),
        None,
    )
    .expect_err("unknown station");
    let msg = err.to_string();
    assert!(
        msg.contains("USW00099999")
            && msg.contains("USC00305925 (1 days)")
            && msg.contains("cdo_two_stations.csv"),
        "{msg}"
    );
}

#[test]
fn ghcn_access_csv_is_tenths_of_mm_with_flags_in_the_attributes() {
    let r = read("ghcn_access.csv", None, None);
    assert_eq!(
        (r.format, r.units),
        (RainFormat::GhcnAccess, RainUnits::TenthsMm)
    );
    assert_eq!(
        inches(&r),
        vec![
            (d("2026-11-19"), 0.0),
            (d("2026-11-20"), 0.819),
            (d("2026-11-21"), 0.051)
        ]
    );
    assert_eq!(r.quality_flagged, 1);
    assert_eq!(
        r.stations[0].name.as_deref(),
        Some("SYRACUSE HANCOCK INTERNATIONAL AIRPORT, NY US")
    );
}

#[test]
fn cdo_export_is_inches_and_units_can_be_overridden() {
    let r = read("cdo_export.csv", None, None);
    assert_eq!(
        (r.format, r.units),
        (RainFormat::CdoExport, RainUnits::Inches)
    );
    assert_eq!(
        inches(&r),
        vec![
            (d("2026-11-19"), 0.0),
            (d("2026-11-20"), 0.82),
            (d("2026-11-21"), 0.49),
            (d("2026-11-22"), 0.5),
        ]
    );
    let mm = read("cdo_export.csv", None, Some("mm"));
    assert_eq!(mm.units, RainUnits::Mm);
    assert_eq!(inches(&mm)[1], (d("2026-11-20"), 0.032));
}

/// Writes `text` to a temp file and returns the error reading it gives.
fn bad(text: &str, units: Option<&str>) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path().join("rain.csv");
    std::fs::write(&p, text).expect("write");
    let e = read_file(&p, "rain.csv", None, units).expect_err("should be refused");
    let msg = e.to_string();
    assert!(msg.contains("rain.csv"), "the error names the file: {msg}");
    msg
}

#[test]
fn bad_rainfall_files_are_refused_naming_the_file_line_and_column() {
    const CDO: &str = "\"STATION\",\"NAME\",\"DATE\",\"PRCP\"\n";
    let cases: Vec<(String, Option<&str>, &str)> = vec![
        (String::new(), None, "empty"),
        (
            "site,acres\nS1,2\n".into(),
            None,
            "neither a header with DATE and PRCP",
        ),
        (
            "\"STATION\",\"DATE\",\"TMAX\"\n\"X\",\"2026-11-20\",\"40\"\n".into(),
            None,
            "no PRCP column",
        ),
        (
            format!(
                "{CDO}\"A\",\"N\",\"2026-11-20\",\"0.1\"\n\"A\",\"N\",\"2026-11-21\",\"abc\"\n"
            ),
            None,
            "line 3, column PRCP (4): 'abc' is not a number",
        ),
        (
            format!("{CDO}\"A\",\"N\",\"11/20/2026\",\"0.1\"\n"),
            None,
            "line 2, column DATE (3): '11/20/2026' is not a date",
        ),
        (
            format!("{CDO}\"A\",\"N\",\"2026-11-20\",\"-0.3\"\n"),
            None,
            "is not a precipitation amount",
        ),
        (
            format!("{CDO}\"A\",\"N\",\"2026-11-20\",\"254\"\n"),
            None,
            "more than any day's rain",
        ),
        (
            format!("{CDO}\"A\",\"N\",\"2026-11-20\",\"0.82\"\n"),
            Some("tenths_mm"),
            "not a whole number of tenths of mm",
        ),
        (
            format!(
                "{CDO}\"A\",\"N\",\"2026-11-20\",\"0.1\"\n\"A\",\"N\",\"2026-11-20\",\"0.2\"\n"
            ),
            None,
            "line 3: a second PRCP for station A on 2026-11-20 (the first is on line 2)",
        ),
        (
            format!("{CDO}\"A\",\"N\",\"2026-11-20\",\n"),
            None,
            "no PRCP values",
        ),
        (
            "USW00014771,20261120,TMAX,50,,,W,2400\n".into(),
            None,
            "no PRCP values",
        ),
        (
            format!("{CDO}\"A\",\"N\",\"2026-11-20\",\"0.1\"\n"),
            Some("furlongs"),
            "units 'furlongs' is not one of",
        ),
    ];
    for (text, units, want) in cases {
        let msg = bad(&text, units);
        assert!(msg.contains(want), "expected '{want}' in: {msg}");
    }
    let e =
        read_file(Path::new("/nonexistent/rain.csv"), "rain.csv", None, None).expect_err("missing");
    assert!(e.to_string().contains("/nonexistent/rain.csv"));
}

#[test]
fn a_manifest_rainfall_layer_loads_and_a_broken_one_stops_the_load() {
    let good = std::fs::read(fixture("cdo_export.csv")).expect("fixture");
    let manifest = "[[layer]]\nrole = \"rainfall\"\npath = \"rain.csv\"\n";
    let ds = common::dataset(manifest, &[("rain.csv", &good)]);
    let cat = Catalog::open(ds.path()).expect("loads");
    assert_eq!(cat.rainfall_days().len(), 4);
    assert!(cat
        .sources()
        .iter()
        .any(|s| s.role == "rainfall" && s.path == "rain.csv"));
    let broken = common::dataset(
        manifest,
        &[("rain.csv", b"\"STATION\",\"DATE\",\"TMAX\"\n")],
    );
    let err = Catalog::open(broken.path())
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("rain.csv") && err.contains("no PRCP column"),
        "{err}"
    );
    let v = outfall_core::catalog::validate(broken.path());
    assert!(
        v.errors.iter().any(|e| e.contains("no PRCP column")),
        "{:?}",
        v.errors
    );
    // The rainfall keys belong to rainfall layers only.
    let wrong = "[[layer]]\nrole = \"boundary\"\npath = \"b.geojson\"\nstation = \"USW00014771\"\n";
    let err = outfall_core::Manifest::parse(wrong, Path::new("outfall.toml"))
        .expect_err("refused")
        .to_string();
    assert!(err.contains("apply only to a rainfall layer"), "{err}");
}

// ---- the demo, the route, the day sheet, the command ----

fn demo_state() -> outfall_server::AppState {
    use std::sync::{Arc, OnceLock};
    static STATE: OnceLock<outfall_server::AppState> = OnceLock::new();
    STATE
        .get_or_init(|| {
            let cat = Catalog::open(&common::demo_dir()).expect("demo loads");
            outfall_server::AppState::new(
                Arc::new(cat),
                Path::new(env!("CARGO_MANIFEST_DIR")).join("web"),
            )
        })
        .clone()
}

async fn get(uri: &str) -> (StatusCode, String, String, Option<String>) {
    let res = outfall_server::app(demo_state())
        .oneshot(Request::get(uri).body(Body::empty()).expect("request"))
        .await
        .expect("response");
    let status = res.status();
    let h = |k| {
        res.headers()
            .get(k)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    let (ct, cache) = (
        h(header::CONTENT_TYPE).unwrap_or_default(),
        h(header::CACHE_CONTROL),
    );
    let body = res.into_body().collect().await.expect("body").to_bytes();
    (
        status,
        ct,
        String::from_utf8_lossy(&body).into_owned(),
        cache,
    )
}

#[tokio::test]
async fn the_demo_due_list_after_its_storm() {
    let (status, ct, body, cache) = get("/inspections/due?as_of=2026-11-30").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(ct.starts_with("application/json"));
    assert_eq!(cache.as_deref(), Some("no-cache"));
    let v: serde_json::Value = serde_json::from_str(&body).expect("json");
    let ids: Vec<&str> = v["sites"]
        .as_array()
        .expect("sites")
        .iter()
        .map(|s| s["site_id"].as_str().expect("id"))
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    // The active sites under Condition A, B or C (data/clay/README.md), none inspected yet.
    assert_eq!(
        sorted,
        vec!["S01", "S03", "S04", "S05", "S06", "S10", "S12", "S14"]
    );
    for s in v["sites"].as_array().expect("sites") {
        let storms: Vec<(&str, &str)> = s["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter(|i| i["kind"] == "storm")
            .map(|i| {
                (
                    i["storm"]["date"].as_str().expect("date"),
                    i["urgency"].as_str().expect("u"),
                )
            })
            .collect();
        // Friday's storm was due Saturday; Sunday's is due today.
        assert!(storms.contains(&("2026-11-27", "overdue")), "{storms:?}");
        assert!(storms.contains(&("2026-11-29", "due_today")), "{storms:?}");
        assert_eq!(
            s["items"][0]["kind"], "cycle",
            "the 7-day item comes first (earliest)"
        );
    }
    let not_due: Vec<&str> = v["not_due"]
        .as_array()
        .expect("not_due")
        .iter()
        .map(|s| s["site_id"].as_str().expect("id"))
        .collect();
    for id in ["S09", "S11", "S13", "S15"] {
        assert!(not_due.contains(&id), "{id} owes nothing: {not_due:?}");
    }
    // S02, a single-family home on Mud Creek, owes inspections only under Condition A, which
    // is open: the 303(d) list loaded does not cover Mud Creek. It is listed as needing data.
    let needs_data: Vec<&str> = v["needs_data"]
        .as_array()
        .expect("needs_data")
        .iter()
        .map(|s| s["site_id"].as_str().expect("id"))
        .collect();
    assert!(needs_data.contains(&"S02"), "{needs_data:?}");
    assert_eq!(
        v["rainfall"]["sources"][0],
        "USW00014771, rainfall_demo.csv"
    );

    // A week before the storms: none of them is owed yet.
    let (_, _, body, _) = get("/inspections/due?as_of=2026-11-20").await;
    assert!(!body.contains("2026-11-27"));
}

#[tokio::test]
async fn the_route_refuses_a_bad_date_and_serves_the_day_sheet() {
    let (status, ct, body, _) = get("/inspections/due?as_of=2026-13-01").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(ct, "application/problem+json");
    assert!(body.contains("2026-13-01"), "{body}");

    let (status, ct, html, _) = get("/inspections/due.html?as_of=2026-11-30").await;
    assert_eq!(status, StatusCode::OK);
    assert!(ct.starts_with("text/html"));
    assert!(html.contains("Inspection day sheet — Mon 2026-11-30"));
    assert!(html.contains("Inspect today (8)"));
    assert!(
        html.contains("data-site=\"S04\"") && html.contains("storm of 0.82 in on Fri 2026-11-27")
    );
    assert!(
        !html.contains("data-site=\"S09\""),
        "a stabilized site is not on the sheet"
    );
}

#[test]
fn the_command_prints_the_list_and_json() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_outfall"))
            .args(args)
            .output()
            .expect("run outfall")
    };
    let demo = common::demo_dir();
    let demo = demo.to_str().expect("utf-8 path");
    let out = run(&["inspections", "--data", demo, "--as-of", "2026-11-30"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("INSPECTIONS DUE as of Mon 2026-11-30"),
        "{text}"
    );
    assert!(text.contains("8 overdue"), "{text}");
    let out = run(&[
        "inspections",
        "--data",
        demo,
        "--as-of",
        "2026-11-30",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["as_of"], "2026-11-30");
    assert_eq!(v["counts"]["overdue"], 8);
    let out = run(&["inspections", "--data", demo, "--as-of", "30/11/2026"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a date"));
}
