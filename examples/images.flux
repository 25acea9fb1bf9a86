// The seed's process_images: a map over a stream, each image's features
// computed from that image alone, so the images may be processed in any
// order (order_independent holds) and nothing is kept between them.
type Image = { id: Int, width: Int, height: Int, brightness: Float }
type Features = { id: Int, pixels: Int, bright: Bool }

intent process_images(images: Stream[Image]) -> Stream[Features]:
    constraints:
        - for each image: extract_features(image)
    properties:
        - order_independent
        - stateless

intent extract_features(image: Image) -> Features:
    constraints:
        - result = {id: image.id, pixels: image.width * image.height, bright: image.brightness > 0.5}
