package openapi

// reflectAll reflects every component, in order.
func (cs *components) reflectAll() (*Object, error) {
	out := &Object{}
	for _, c := range cs.list {
		s, err := cs.reflect(c)
		if err != nil {
			return nil, err
		}
		out.Set(c.Name, s)
	}
	return out, nil
}

// Schemas reflects the components, as components.schemas.
func Schemas(list []Component) (*Object, error) {
	cs, err := newComponents(list)
	if err != nil {
		return nil, err
	}
	return cs.reflectAll()
}
