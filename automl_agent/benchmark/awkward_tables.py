"""Small synthetic tables with the column names people really have (CamelCase, units, prefixes, flags), for the
instruction-understanding corpus. Deterministic: the same seed writes the same files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

N_ROWS = 300


def _loans(rng: np.random.Generator) -> pd.DataFrame:
    income = rng.lognormal(10.8, 0.4, N_ROWS).round(0)
    score = rng.integers(480, 850, N_ROWS)
    risk = 1 / (1 + np.exp((score - 600) / 40))
    return pd.DataFrame({
        "LoanID": [f"LN{100000 + i}" for i in range(N_ROWS)],
        "ApplicantIncome_USD": income,
        "LoanAmount_k": rng.uniform(5, 400, N_ROWS).round(1),
        "CreditScore": score,
        "EmploymentYears": rng.integers(0, 35, N_ROWS),
        "HomeOwnership": rng.choice(["RENT", "OWN", "MORTGAGE"], N_ROWS),
        "Purpose": rng.choice(["car", "home", "education", "business"], N_ROWS),
        "Defaulted": np.where(rng.random(N_ROWS) < risk, "Yes", "No"),
    })


def _retail(rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({
        "InvoiceNo": [f"INV-{500000 + i}" for i in range(N_ROWS)],
        "Quantity": rng.integers(1, 40, N_ROWS),
        "UnitPrice_EUR": rng.gamma(2.0, 6.0, N_ROWS).round(2),
        "CustomerCountry": rng.choice(["France", "Germany", "Spain", "Italy", "Netherlands"], N_ROWS),
        "ProductCategory": rng.choice(["kitchen", "garden", "toys", "stationery"], N_ROWS),
        "Returned": rng.random(N_ROWS) < 0.12,
    })


def _hr(rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({
        "employee_id": np.arange(1001, 1001 + N_ROWS),
        "Age": rng.integers(21, 62, N_ROWS),
        "Department": rng.choice(["Sales", "R&D", "HR", "Support"], N_ROWS),
        "MonthlyIncome": rng.integers(2000, 15000, N_ROWS),
        "YearsAtCompany": rng.integers(0, 30, N_ROWS),
        "OverTime": rng.choice(["Yes", "No"], N_ROWS),
        "JobSatisfaction": rng.integers(1, 5, N_ROWS),
        "left_company": (rng.random(N_ROWS) < 0.17).astype(int),
    })


def _matches(rng: np.random.Generator) -> pd.DataFrame:
    teams = ["Rovers", "United", "Athletic", "City", "Wanderers", "Albion"]
    return pd.DataFrame({
        "match_date": pd.date_range("2023-08-05", periods=N_ROWS, freq="3D").strftime("%Y-%m-%d"),
        "home_team": rng.choice(teams, N_ROWS),
        "away_team": rng.choice(teams, N_ROWS),
        "home_form": rng.uniform(0, 3, N_ROWS).round(2),
        "away_form": rng.uniform(0, 3, N_ROWS).round(2),
        "possession_pct": rng.uniform(30, 70, N_ROWS).round(1),
        "outcome": rng.choice(["Won", "Lost", "Drawn"], N_ROWS, p=[0.45, 0.3, 0.25]),
    })


def _transfers(rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({
        "txn_id": [f"T{i:07d}" for i in range(N_ROWS)],
        "amount_usd": rng.lognormal(4, 1.2, N_ROWS).round(2),
        "merchant_category": rng.choice(["grocery", "travel", "electronics", "fuel", "online"], N_ROWS),
        "hour_of_day": rng.integers(0, 24, N_ROWS),
        "country_mismatch": (rng.random(N_ROWS) < 0.1).astype(int),
        "is_fraud": (rng.random(N_ROWS) < 0.06).astype(int),
    })


def _visitors(rng: np.random.Generator) -> pd.DataFrame:
    days = pd.date_range("2023-01-01", periods=N_ROWS * 2, freq="D")
    weekly = 80 * np.sin(2 * np.pi * days.dayofweek / 7)
    return pd.DataFrame({
        "Date": days.strftime("%Y-%m-%d"),
        "Visitors": (900 + weekly + rng.normal(0, 40, len(days))).round().astype(int),
        "IsHoliday": (rng.random(len(days)) < 0.04).astype(int),
        "TempC": (12 + 10 * np.sin(2 * np.pi * days.dayofyear / 365) + rng.normal(0, 2, len(days))).round(1),
    })


def _houses(rng: np.random.Generator) -> pd.DataFrame:
    area = rng.integers(3000, 20000, N_ROWS)
    quality = rng.integers(1, 11, N_ROWS)
    return pd.DataFrame({
        "Id": np.arange(1, N_ROWS + 1),
        "LotArea_sqft": area,
        "YearBuilt": rng.integers(1900, 2022, N_ROWS),
        "Bedrooms": rng.integers(1, 6, N_ROWS),
        "Neighborhood": rng.choice(["NAmes", "CollgCr", "OldTown", "Edwards", "Somerst"], N_ROWS),
        "OverallQual": quality,
        "SalePrice": (40000 + area * 8 + quality * 15000 + rng.normal(0, 20000, N_ROWS)).round(-2),
    })


def _students(rng: np.random.Generator) -> pd.DataFrame:
    base = rng.normal(66, 14, N_ROWS)
    return pd.DataFrame({
        "student_id": np.arange(1, N_ROWS + 1),
        "gender": rng.choice(["female", "male"], N_ROWS),
        "lunch": rng.choice(["standard", "free/reduced"], N_ROWS),
        "test_prep": rng.choice(["none", "completed"], N_ROWS),
        "math_score": np.clip(base + rng.normal(0, 6, N_ROWS), 0, 100).round().astype(int),
        "reading_score": np.clip(base + rng.normal(3, 6, N_ROWS), 0, 100).round().astype(int),
        "writing_score": np.clip(base + rng.normal(1, 6, N_ROWS), 0, 100).round().astype(int),
    })


def _sensors(rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({
        "machine_id": [f"M-{i:04d}" for i in range(N_ROWS)],
        "vibration_mm_s": rng.gamma(2, 1.5, N_ROWS).round(3),
        "temperature_c": rng.normal(65, 8, N_ROWS).round(1),
        "pressure_kpa": rng.normal(310, 25, N_ROWS).round(1),
        "rpm": rng.integers(900, 3600, N_ROWS),
    })


def _fish(rng: np.random.Generator) -> pd.DataFrame:
    length = rng.uniform(10, 60, N_ROWS)
    return pd.DataFrame({
        "Species": rng.choice(["Bream", "Roach", "Perch", "Pike", "Smelt"], N_ROWS),
        "Length1_cm": length.round(1),
        "Height_cm": (length * rng.uniform(0.15, 0.4, N_ROWS)).round(2),
        "Width_cm": (length * rng.uniform(0.1, 0.2, N_ROWS)).round(2),
        "Weight_g": (0.012 * length ** 3 * rng.uniform(0.8, 1.2, N_ROWS)).round(1),
    })


def _insurance(rng: np.random.Generator) -> pd.DataFrame:
    age = rng.integers(18, 65, N_ROWS)
    bmi = rng.normal(30, 6, N_ROWS).round(1)
    smoker = rng.random(N_ROWS) < 0.2
    return pd.DataFrame({
        "age": age,
        "sex": rng.choice(["female", "male"], N_ROWS),
        "bmi": bmi,
        "children": rng.integers(0, 5, N_ROWS),
        "smoker": np.where(smoker, "yes", "no"),
        "region": rng.choice(["northeast", "northwest", "southeast", "southwest"], N_ROWS),
        "charges_usd": (250 * age + 300 * bmi + 20000 * smoker + rng.normal(0, 3000, N_ROWS)).round(2),
    })


def _patients(rng: np.random.Generator) -> pd.DataFrame:
    glucose = rng.normal(120, 30, N_ROWS).round(0)
    bmi = rng.normal(32, 7, N_ROWS).round(1)
    risk = 1 / (1 + np.exp(-(glucose - 140) / 15))
    return pd.DataFrame({
        "PatientID": [f"P{i:05d}" for i in range(N_ROWS)],
        "Pregnancies": rng.integers(0, 10, N_ROWS),
        "Glucose_mg_dL": glucose,
        "BloodPressure_mmHg": rng.normal(72, 12, N_ROWS).round(0),
        "BMI": bmi,
        "Age": rng.integers(21, 80, N_ROWS),
        "DiabetesDiagnosis": np.where(rng.random(N_ROWS) < risk, "positive", "negative"),
    })


def _flights(rng: np.random.Generator) -> pd.DataFrame:
    distance = rng.uniform(200, 4000, N_ROWS).round(0)
    return pd.DataFrame({
        "FlightNo": [f"AA{1000 + i}" for i in range(N_ROWS)],
        "Carrier": rng.choice(["AA", "DL", "UA", "WN", "B6"], N_ROWS),
        "DepHour": rng.integers(5, 23, N_ROWS),
        "Distance_km": distance,
        "DelayMinutes": rng.gamma(1.5, 12, N_ROWS).round(0),
        "WasCancelled": (rng.random(N_ROWS) < 0.06).astype(int),
    })


def _wine(rng: np.random.Generator) -> pd.DataFrame:
    alcohol = rng.normal(10.5, 1.1, N_ROWS).round(1)
    return pd.DataFrame({
        "fixed_acidity": rng.normal(8.3, 1.7, N_ROWS).round(1),
        "residual_sugar_g_l": rng.gamma(2.0, 1.3, N_ROWS).round(1),
        "pH": rng.normal(3.3, 0.15, N_ROWS).round(2),
        "alcohol_pct": alcohol,
        "colour": rng.choice(["red", "white"], N_ROWS),
        "quality": np.clip(np.round((alcohol - 10.5) * 0.8 + 5.6 + rng.normal(0, 0.6, N_ROWS)), 3, 9).astype(int),
    })


def _bikes(rng: np.random.Generator) -> pd.DataFrame:
    hours = pd.date_range("2024-03-01", periods=N_ROWS * 2, freq="h")
    temp = 50 + 15 * np.sin(np.arange(len(hours)) / 24 * 2 * np.pi) + rng.normal(0, 3, len(hours))
    return pd.DataFrame({
        "timestamp": hours.strftime("%Y-%m-%d %H:%M"),
        "temp_f": temp.round(1),
        "humidity_pct": rng.uniform(30, 95, len(hours)).round(0),
        "is_weekend": (hours.dayofweek >= 5).astype(int),
        "rentals": np.maximum(0, (temp - 40) * 4 + rng.normal(0, 20, len(hours))).round(0).astype(int),
    })


def _tickets(rng: np.random.Generator) -> pd.DataFrame:
    texts = {
        "billing": ["I was charged twice this month", "refund my last invoice please", "wrong amount on my bill"],
        "technical": ["the app crashes when I log in", "cannot connect to the server", "error 500 on checkout"],
        "account": ["how do I change my password", "please close my account", "update my email address"],
    }
    topics = rng.choice(list(texts), N_ROWS)
    return pd.DataFrame({
        "ticket_id": [f"TCK-{i:05d}" for i in range(N_ROWS)],
        "body": [f"{rng.choice(texts[t])} (ref {i})" for i, t in enumerate(topics)],
        "queue": topics,
        "urgent": (rng.random(N_ROWS) < 0.15).astype(int),
    })


TABLES = {"loans": _loans, "retail": _retail, "hr": _hr, "matches": _matches, "transfers": _transfers,
          "visitors": _visitors, "houses": _houses, "students": _students, "sensors": _sensors, "fish": _fish,
          "insurance": _insurance, "patients": _patients, "flights": _flights,
          "wine": _wine, "bikes": _bikes, "tickets": _tickets}


def write_tables(folder: Path, seed: int = 0) -> dict[str, Path]:
    """Write every table as `<name>.csv` in folder; returns name -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for i, (name, make) in enumerate(TABLES.items()):
        path = folder / f"{name}.csv"
        make(np.random.default_rng(seed + i)).to_csv(path, index=False)
        paths[name] = path
    return paths
