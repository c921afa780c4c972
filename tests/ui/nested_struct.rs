use mrtr_guard::FormFields;
use serde::Deserialize;

#[derive(Deserialize, FormFields)]
struct Room {
    building: String,
    floor: u8,
}

#[derive(Deserialize, FormFields)]
struct Booking {
    topic: String,
    room: Room,
}

fn main() {
    let _ = mrtr_guard::Form::of::<Booking>("Book a meeting");
}
