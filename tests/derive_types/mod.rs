//! The test types of the derive tests: nested, recursive, generic, and
//! every enum representation.
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap, VecDeque};

use gcd::Constrained;
use serde::{Deserialize, Serialize};

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Person {
    pub first_name: String,
    #[serde(alias = "years")]
    pub age: u8,
    #[serde(default)]
    pub nick_names: Vec<String>,
    pub email: Option<String>,
    #[serde(rename = "$score")]
    pub score: f64,
    #[serde(skip)]
    pub cache: u32,
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "tool", content = "args", rename_all = "snake_case")]
pub enum ToolCall {
    Search {
        query: String,
        #[constrained(range = 1..=10)]
        limit: u8,
    },
    Weather {
        city: String,
        unit: Option<Unit>,
    },
    Stop,
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type")]
pub enum Shape2 {
    Circle { r: u16 },
    Rect { w: u16, h: u16 },
    Empty,
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum External {
    Unit,
    New(i64),
    Pair(bool, char),
    Named { a: Vec<u8> },
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(untagged)]
pub enum Untagged {
    Num(u32),
    Text(String),
    List(Vec<bool>),
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Tree {
    pub value: i16,
    pub children: Vec<Tree>,
    pub next: Option<Box<Tree>>,
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Wrapper<T> {
    pub inner: T,
    pub items: VecDeque<T>,
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Newtype(pub u64);

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Tuple3(pub i8, pub String, pub [u8; 3]);

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
pub struct Meters {
    pub value: f32,
}

#[derive(Constrained, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Maps {
    pub by_name: BTreeMap<String, (u8, Unit)>,
    pub counts: HashMap<String, i64>,
    #[constrained(pattern = "[a-z]{2,5}")]
    pub code: String,
    #[constrained(min_len = 1, max_len = 4)]
    pub short: String,
    #[constrained(min_items = 1, max_items = 2)]
    pub few: Vec<Unit>,
    pub unit: (),
}
