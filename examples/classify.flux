// The seed's classify_image: an accuracy cannot be built from, so the
// program gives implementations (`result is one of`) and the labelled
// examples to measure them on; Flux runs the most accurate one within the
// latency on this device, and `flux explain` shows the figures.
type Image = { brightness: Float, edges: Int }
type Label = String
type Example = { brightness: Float, edges: Int, label: String }
data labelled: List[Example] from "labelled_images.csv"

intent classify_image(img: Image) -> Label:
    constraints:
        - result is one of by_brightness(img), by_edges(img)
        - accuracy > 95% on labelled
        - latency < 100ms on target_device

intent by_brightness(img: Image) -> Label:
    constraints:
        - result = if img.brightness > 0.5 then "day" else "night"

intent by_edges(img: Image) -> Label:
    constraints:
        - result = if img.edges > 10 and img.brightness > 0.4 then "day" else "night"
